package io.gradscope.app.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The program the app opens with: the chain from the backpropagation post. */
final class DefaultProgram {
    private DefaultProgram() {
    }

    static String text() {
        try (InputStream in = DefaultProgram.class.getResourceAsStream("/examples/backprop_chain.grad")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "X = input(4, 3)\nW = param(3, 2)\nY = X @ W\nh = relu(Y)\nloss = sum(h)\n";
        }
    }
}
