package io.gradscope.bench.ui;

import io.gradscope.bench.tools.ConvAB;

/** A fixture for BenchLayersTest: a bench-ui class using a tool, a row above it. */
public final class UsesTools {
    private UsesTools() {
    }

    static void run() {
        ConvAB.main(new String[] {"1", "1"});
    }
}
