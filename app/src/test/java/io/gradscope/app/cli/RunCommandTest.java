package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {
    @TempDir
    Path tmp;

    private Path program(String text) throws IOException {
        Path p = tmp.resolve("mlp.grad");
        Files.writeString(p, text);
        return p;
    }

    private static void assertOneLineError(Cli.Result r, String expected) {
        assertEquals(2, r.status(), r.err());
        assertEquals(expected, r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void writesObjectiveGradientsAndEveryNamedValue() throws IOException {
        Path p = program("x = input(2, 3)\nW = param(3, 2)\nb = param(2, init=\"zeros\")\ny = relu(x @ W + b)\nloss = sum(y)\n");
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("run", p.toString(), "--dtype", "float64", "--seed", "3", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        Tensor objective = Npy.read(out.resolve("objective.npy"));
        assertEquals(0, objective.rank());
        assertEquals(objective.item(), Double.parseDouble(r.out().strip()));
        for (String v : new String[] {"x", "W", "b", "y", "loss"}) {
            assertTrue(Files.exists(out.resolve("value/" + v + ".npy")), v);
        }
        assertTrue(Files.exists(out.resolve("grad/W.npy")) && Files.exists(out.resolve("grad/b.npy")));
        assertTrue(!Files.exists(out.resolve("grad/x.npy")), "x is an input without grad=True");
        // Independent check: dL/db = number of positive pre-activations per column.
        double[] x = Npy.read(out.resolve("value/x.npy")).toDoubleArray();
        double[] w = Npy.read(out.resolve("value/W.npy")).toDoubleArray();
        double[] db = new double[2];
        double sum = 0;
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
                double z = 0;
                for (int k = 0; k < 3; k++) {
                    z += x[i * 3 + k] * w[k * 2 + j];
                }
                db[j] += z > 0 ? 1 : 0;
                sum += Math.max(z, 0);
            }
        }
        assertArrayEquals(db, Npy.read(out.resolve("grad/b.npy")).toDoubleArray(), 0);
        assertEquals(sum, objective.item(), 1e-12);
    }

    @Test
    void sameSeedSameResultOtherSeedOtherResult() throws IOException {
        Path p = program("W = param(3, 2)\nloss = sum(W * W)\n");
        String a = Cli.run("run", p.toString(), "--seed", "1").out();
        assertEquals(a, Cli.run("run", p.toString(), "--seed", "1").out());
        assertTrue(!a.equals(Cli.run("run", p.toString(), "--seed", "2").out()));
    }

    @Test
    void programErrorsAreOneLineWithPosition() throws IOException {
        Path p = program("x = input(32, 784)\nW = param(128, 10)\nlogits = x @ W\nloss = sum(logits)\n");
        assertOneLineError(Cli.run("run", p.toString()),
                p + ":3:12: error: '@' needs matching inner dimensions: [32, 784] @ [128, 10] (784 != 128)");
        p = program("x = input(3)\ny = rleu(x)\n");
        assertOneLineError(Cli.run("run", p.toString()), p + ":2:5: error: unknown function 'rleu' (did you mean 'relu'?)");
    }

    @Test
    void inputFileErrorsNameTheOptionAndTheProblem() throws IOException {
        Path p = program("x = input(2, 3)\nW1 = param(784, 128)\nloss = sum(x) + sum(W1)\n");
        Path w = tmp.resolve("w1.npy");
        Npy.write(Tensor.zeros(DType.FLOAT32, 128, 784), w);
        assertOneLineError(Cli.run("run", p.toString(), "--input", "W1=" + w),
                "error: --input W1=" + w + ": shape [128, 784] does not match the declared [784, 128]");
        assertOneLineError(Cli.run("run", p.toString(), "--input", "w1=" + w),
                "error: --input w1=" + w + ": the program has no leaf named 'w1' (did you mean 'W1'?)");
        assertOneLineError(Cli.run("run", p.toString(), "--input", "W1"), "error: --input W1: expected NAME=FILE.npy");
        Path missing = tmp.resolve("nope.npy");
        Cli.Result r = Cli.run("run", p.toString(), "--input", "x=" + missing);
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: --input x=" + missing + ": cannot read"), r.err());
    }

    @Test
    void fortranOrderAndUnsupportedDtypesAreRefused() throws IOException {
        Path p = program("x = input(2, 3)\nloss = sum(x)\n");
        Path f = tmp.resolve("f.npy");
        Files.write(f, npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 48));
        assertOneLineError(Cli.run("run", p.toString(), "--input", "x=" + f), "error: --input x=" + f
                + ": Fortran-order arrays are not supported; save it in C order (numpy.ascontiguousarray)");
        Files.write(f, npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", 48));
        assertOneLineError(Cli.run("run", p.toString(), "--input", "x=" + f),
                "error: --input x=" + f + ": unsupported dtype '>f8' (expected <f4, <f8, <i8 or <i4)");
        Files.write(f, "not numpy".getBytes(StandardCharsets.US_ASCII));
        assertOneLineError(Cli.run("run", p.toString(), "--input", "x=" + f),
                "error: --input x=" + f + ": not a .npy file (no NumPy magic header)");
    }

    @Test
    void int32LabelsAndFloat32InputsAreConverted() throws IOException {
        Path p = program("z = param(2, 3)\nt = labels(2, classes=3)\nloss = cross_entropy(z, t)\n");
        Path t = tmp.resolve("t.npy");
        ByteBuffer data = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(2).putInt(0);
        Files.write(t, concat(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 0), data.array()));
        Path z = tmp.resolve("z.npy");
        Npy.write(Tensor.of(new float[] {0, 0, 0, 0, 0, 0}, 2, 3), z);
        Cli.Result r = Cli.run("run", p.toString(), "--dtype", "float64", "--input", "t=" + t, "--input", "z=" + z);
        assertEquals(0, r.status(), r.err());
        assertEquals(Math.log(3), Double.parseDouble(r.out().strip()), 1e-12, "uniform logits: loss = ln 3");
        Path bad = tmp.resolve("bad.npy");
        Npy.write(Tensor.ofLongs(new long[] {0, 7}, 2), bad);
        assertOneLineError(Cli.run("run", p.toString(), "--input", "t=" + bad),
                "error: --input t=" + bad + ": label 7 at index 1 is outside [0, 3)");
    }

    @Test
    void badOptionsAreClearErrors() throws IOException {
        Path p = program("W = param(2)\nloss = sum(W)\n");
        assertOneLineError(Cli.run("run", p.toString(), "--dtype", "float16"), "error: --dtype must be float32 or float64, not 'float16'");
        if (!io.gradscope.engine.tensor.Backends.cudaAvailable()) {
            Cli.Result r0 = Cli.run("run", p.toString(), "--device", "cuda");
            assertEquals(2, r0.status());
            assertTrue(r0.err().startsWith("error: CUDA unavailable: ") && r0.err().strip().lines().count() == 1, r0.err());
        }
        assertOneLineError(Cli.run("run", p.toString(), "--device", "tpu"), "error: --device must be cpu or cuda, not 'tpu'");
        Cli.Result r = Cli.run("run", tmp.resolve("missing.grad").toString());
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: cannot read " + tmp.resolve("missing.grad")), r.err());
        r = Cli.run("run", p.toString(), "--seed", "abc");
        assertEquals(2, r.status());
        assertEquals("error: --seed: 'abc' is not a whole number; see gradscope run --help", r.err().strip());
    }

    @Test
    void helpDocumentsEveryOption() {
        Cli.Result r = Cli.run("run", "--help");
        assertEquals(0, r.status());
        for (String o : new String[] {"--input", "--seed", "--dtype", "--device", "--out", "objective.npy", "grad/NAME.npy",
            "value/NAME.npy", "Exit status"}) {
            assertTrue(r.out().contains(o), "help lacks " + o + ":\n" + r.out());
        }
    }

    private static byte[] npy(String header, int dataBytes) {
        StringBuilder h = new StringBuilder(header);
        while ((10 + h.length() + 1) % 64 != 0) {
            h.append(' ');
        }
        h.append('\n');
        ByteBuffer b = ByteBuffer.allocate(10 + h.length() + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) h.length());
        b.put(h.toString().getBytes(StandardCharsets.ISO_8859_1));
        return b.array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
