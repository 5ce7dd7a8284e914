package io.gradscope.app.cli;

import static io.gradscope.app.cli.Cli.assertOneLineError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import io.gradscope.app.service.ModelImport;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19: every bad input is one line and exit status 2, never a stack trace, a hang or lost files.
 * Each test here failed before the fix.
 */
class BadInputCommandTest {
    private static final Duration NO_HANG = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private Path program(String text) throws IOException {
        Path p = tmp.resolve("p.grad");
        Files.writeString(p, text);
        return p;
    }

    private static Cli.Result run(String... args) {
        return assertTimeoutPreemptively(NO_HANG, () -> Cli.run(args), "hung: " + String.join(" ", args));
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

    private static void mkfifo(Path p) throws Exception {
        Process mk;
        try {
            mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("no mkfifo here: " + e.getMessage());
            return;
        }
        Assumptions.assumeTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo failed");
    }

    // ---- 1, 2: inputs over 2 GB, one copy ---------------------------------------------------------

    @Test
    void anInputFileOverTwoGigabytesIsRead() throws IOException {
        Path p = program("x = input(2, 3)\nloss = sum(x)\n");
        Path f = tmp.resolve("x.npy");
        ByteBuffer data = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 1; i <= 6; i++) {
            data.putFloat(i);
        }
        byte[] head = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0);
        Files.write(f, head);
        Files.write(f, data.array(), java.nio.file.StandardOpenOption.APPEND);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength((5L << 29) + 7); // sparse: 2.5 GiB long, six floats of data
        }
        Cli.Result r = run("run", p.toString(), "--input", "x=" + f);
        assertEquals(0, r.status(), r.err());
        assertEquals("21.0", r.out().strip());
    }

    // ---- 3: errors that escaped as stack traces --------------------------------------------------

    @Test
    void devZeroAsAnInputOrAProgramIsRefusedAtOnce() throws IOException {
        Path zero = Path.of("/dev/zero");
        Assumptions.assumeTrue(Files.exists(zero), "no /dev/zero here");
        Path p = program("x = input(2)\nloss = sum(x)\n");
        assertOneLineError(run("run", p.toString(), "--input", "x=/dev/zero"),
                "error: --input x=/dev/zero: cannot read: not a regular file (a character device); only regular files are read");
        assertOneLineError(run("run", "/dev/zero"),
                "error: cannot read /dev/zero: not a regular file (a character device); only regular files are read");
    }

    @Test
    void threeThousandNestedGroupsAreOneLine() throws IOException {
        StringBuilder sb = new StringBuilder("x = param(3)\n");
        for (int i = 0; i < 3000; i++) {
            sb.append(" ".repeat(i)).append("with group(\"g").append(i).append("\"):\n");
        }
        sb.append(" ".repeat(3000)).append("y = sum(x)\n");
        Path p = program(sb.toString());
        assertOneLineError(run("run", p.toString()), p + ":102:101: error: 'with' blocks nested too deeply (more than 100 levels)");
    }

    @Test
    void anUnknownNameOfFortyThousandCharactersIsOneLine() throws IOException {
        String name = "n".repeat(40_000);
        Path p = program(name + " = param(3)\nl = sum(" + name + "x)\n");
        assertOneLineError(run("run", p.toString()), p + ":2:9: error: unknown name '" + name + "x'");
    }

    @Test
    void theDerivativeToolsRefuseBadOptionsNamingThem() {
        String mlp = "../assets/examples/mlp.grad";
        assertOneLineError(run("memory", mlp, "--top", "-1"), "error: --top must be 0 or more rows, not -1");
        assertOneLineError(run("diff", mlp, "--top", "-2"), "error: --top must be 0 or more rows, not -2");
        assertOneLineError(run("diff", mlp, "--a", "device=tpu"), "error: --a: device must be cpu or cuda, not 'tpu'");
        Path missing = tmp.resolve("missing.mtx");
        assertOneLineError(run("color", missing.toString()), "error: cannot read " + missing + ": no such file");
        Path under = tmp.resolve("mlp.grad/colors.npy");
        try {
            Files.writeString(tmp.resolve("mlp.grad"), "x = param(2)\nL = sum(x)\n");
            Path mtx = Files.writeString(tmp.resolve("r.mtx"), "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n");
            assertOneLineError(run("color", mtx.toString(), "--out", under.toString()),
                    "error: --out " + under + ": " + tmp.resolve("mlp.grad").toAbsolutePath() + " is a file, not a folder");
            assertOneLineError(run("color", mtx.toString(), "--out", tmp.toString()),
                    "error: --out " + tmp + ": is a folder; name the .npy file to write");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertOneLineError(run("gradcheck", mlp, "--node", "W1"), "error: --node W1: 'W1' is a leaf: it has no VJP to check (its "
                + "gradient is what the nodes after it send); the nodes are loss, logits, matmul, h, add");
    }

    @Test
    void errorsThatAreNotExceptionsAreStillOneLineAndStatusTwo() {
        StringWriter s = new StringWriter();
        assertEquals(2, GradscopeCommand.report(new StackOverflowError(), new PrintWriter(s, true)));
        assertEquals("error: the program is nested too deeply to run (the Java stack overflowed)", s.toString().strip());
        s = new StringWriter();
        assertEquals(2, GradscopeCommand.report(new OutOfMemoryError("Java heap space"), new PrintWriter(s, true)));
        assertTrue(s.toString().startsWith("error: out of memory (the Java heap's limit is ")
                && s.toString().contains("GiB; raise it with ./gradscope --max-memory SIZE"), s.toString());
        assertEquals(1, s.toString().strip().lines().count());
        s = new StringWriter();
        assertEquals(2, GradscopeCommand.report(new java.nio.file.AccessDeniedException("/srv/out/grad"), new PrintWriter(s, true)));
        assertEquals("error: /srv/out/grad: permission denied", s.toString().strip(), "the path and the reason, not the path alone");
        s = new StringWriter();
        assertEquals(2, GradscopeCommand.report(new io.gradscope.engine.GradscopeException("model.onnx: node 'a\nb' reads 'c'"),
                new PrintWriter(s, true)));
        assertEquals("error: model.onnx: node 'a\\nb' reads 'c'", s.toString().strip(), "a quoted line break stays on the line");
    }

    // ---- 4: malformed .npy headers ---------------------------------------------------------------

    @Test
    void malformedNpyHeadersAreOneLineErrors() throws IOException {
        Path p = program("x = input(3)\nloss = sum(x)\n");
        Path f = tmp.resolve("bad.npy");
        Files.write(f, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0));
        assertOneLineError(run("run", p.toString(), "--input", "x=" + f),
                "error: --input x=" + f + ": bad shape in .npy header: (-1,) has a negative dimension");
        ByteBuffer v2 = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        v2.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0}).putInt(0x7ffffff8);
        Files.write(f, v2.array());
        assertOneLineError(run("run", p.toString(), "--input", "x=" + f),
                "error: --input x=" + f + ": truncated .npy header (it declares 2147483640 bytes, the file has 52 after the preamble)");
        Files.write(f, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824, 4), }", 0));
        assertOneLineError(run("run", p.toString(), "--input", "x=" + f), "error: --input x=" + f
                + ": its shape (1073741824, 1073741824, 4) has 4611686018427387904 elements, more than a tensor can hold (2147483639)");
        Files.write(f, npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 12));
        assertOneLineError(run("run", p.toString(), "--input", "x=" + f), "error: --input x=" + f
                + ": a structured dtype (a record with named fields) is not supported (expected <f4, <f8, <i8 or <i4)");
    }

    // ---- 5: --out loses nothing ------------------------------------------------------------------

    private static final String MLP = "x = input(2)\nW = param(2)\nY = x * W\nl = sum(Y)\n";

    @Test
    void anOutFolderWhoseGradIsAFileIsRefusedBeforeRunningAndLeftAlone() throws IOException {
        Path p = program(MLP);
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("objective.npy"), "old objective");
        Files.writeString(out.resolve("grad"), "a plain file");
        assertOneLineError(run("run", p.toString(), "--out", out.toString()), "error: --out " + out
                + ": 'grad' in it is a file, where an earlier run writes a folder; give a new or empty folder, or one an earlier run wrote");
        assertEquals("old objective", Files.readString(out.resolve("objective.npy")));
        assertEquals("a plain file", Files.readString(out.resolve("grad")));
        assertEquals(List.of("grad", "objective.npy"), list(out));
        assertEquals(List.of("out", "p.grad"), list(tmp), "no temporary folder left beside it");
    }

    @Test
    void anEarlierRunsResultsAreReplacedWholeAndSaidSo() throws IOException {
        Path p = program(MLP);
        Path out = tmp.resolve("out");
        Files.createDirectories(out.resolve("grad"));
        Files.createDirectories(out.resolve("value"));
        Npy.write(Tensor.scalar(99, DType.FLOAT32), out.resolve("objective.npy"));
        Npy.write(Tensor.scalar(1, DType.FLOAT32), out.resolve("grad/OLD.npy"));
        Cli.Result r = run("run", p.toString(), "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertEquals("gradscope: replaced the earlier results in " + out
                + " (2 files; not written by this run, so no longer there: grad/OLD.npy)", r.err().strip());
        assertFalse(Files.exists(out.resolve("grad/OLD.npy")), "stale result removed");
        assertEquals(Double.parseDouble(r.out().strip()), Npy.read(out.resolve("objective.npy")).item(), 1e-6);
        assertEquals(List.of("W.npy"), list(out.resolve("grad")));
        assertEquals(List.of("W.npy", "Y.npy", "l.npy", "x.npy"), list(out.resolve("value")));
        assertEquals(List.of("out", "p.grad"), list(tmp), "no temporary folder left beside it");
    }

    @Test
    void anEmptyOutPathAFileOrAFolderOfOtherFilesIsRefusedUntouched() throws IOException {
        Path p = program(MLP);
        assertOneLineError(run("run", p.toString(), "--out", ""), "error: --out: the path is empty; name the folder for the results");
        assertOneLineError(run("run", p.toString(), "--out", p.toString()), "error: --out " + p + ": is a file, not a folder");
        assertEquals(MLP, Files.readString(p));
        Path mine = tmp.resolve("mine");
        Files.createDirectories(mine);
        Files.writeString(mine.resolve("notes.txt"), "mine");
        assertOneLineError(run("run", p.toString(), "--out", mine.toString()), "error: --out " + mine
                + ": it holds 'notes.txt', which an earlier run did not write; give a new or empty folder, or one an earlier run wrote");
        assertEquals(List.of("notes.txt"), list(mine));
        Path under = p.resolve("out");
        assertOneLineError(run("run", p.toString(), "--out", under.toString()), "error: --out " + under + ": '" + p
                + "' is a file, not a folder");
    }

    @Test
    void anOutFolderThatCannotBeCreatedIsRefusedBeforeRunning() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc here");
        Path p = program(MLP);
        Cli.Result r = run("run", p.toString(), "--out", "/proc/gradscope-out");
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().startsWith("error: --out /proc/gradscope-out: cannot create a folder in /proc ("), r.err());
        assertEquals("", r.out(), "refused before running: no objective printed");
    }

    @Test
    void aNewOutFolderIsCreatedWithItsParents() throws IOException {
        Path p = program(MLP);
        Path out = tmp.resolve("a/b/out");
        Cli.Result r = run("run", p.toString(), "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertEquals("", r.err());
        assertEquals(List.of("grad", "objective.npy", "value"), list(out));
        assertEquals(List.of("out"), list(tmp.resolve("a/b")));
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(x -> x.getFileName().toString()).sorted().toList();
        }
    }

    // ---- 6: FIFOs --------------------------------------------------------------------------------

    @Test
    void aFifoIsRefusedInsteadOfWaitedOn() throws Exception {
        Path fifo = tmp.resolve("fifo.npy");
        mkfifo(fifo);
        Path p = program("x = input(2)\nloss = sum(x)\n");
        assertOneLineError(run("run", p.toString(), "--input", "x=" + fifo),
                "error: --input x=" + fifo + ": cannot read: not a regular file (a named pipe); only regular files are read");
        assertOneLineError(run("run", fifo.toString()),
                "error: cannot read " + fifo + ": not a regular file (a named pipe); only regular files are read");
    }

    // ---- 7: the display, and open's file ---------------------------------------------------------

    @Test
    void openReportsAMissingFileBeforeLookingForADisplay() {
        Path missing = tmp.resolve("missing.grad");
        assertOneLineError(run("open", missing.toString()), "error: cannot read " + missing + ": no such file");
        assertOneLineError(run("open", tmp.toString()), "error: cannot read " + tmp + ": is a directory");
        assertOneLineError(run("open", "../assets/examples/mlp.grad", "--loss", "mse"), "error: --loss applies to an ONNX model "
                + "(MODEL.onnx), not to ../assets/examples/mlp.grad: a program's objective is its last statement");
    }

    /** Runs {@code gradscope ARGS} in a new JVM with {@code jvm} options and a DISPLAY; returns the status and stderr. */
    @Test
    void aDisplayThatCannotBeOpenedIsOneLineAndStatusTwo() throws Exception {
        // A separate JVM: JavaFX starts once per process, and this one may already run it (Monocle).
        Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> Cli.launch(List.of(), ":7413"));
        assertOneLineError(r, "error: the display ':7413' cannot be opened; run it under one (e.g. xvfb-run -a ./gradscope) or use "
                + "the command line: ./gradscope run PROGRAM.grad (see ./gradscope --help)");
    }

    @Test
    void outOfMemoryInTheBackwardPassNamesTheStatementAndTheHeapLimit() throws Exception {
        // Forward: x and y, 61 MiB each, pass the estimate (values and gradients: 244 MiB of 256); the backward
        // pass's temporaries (two products of the same size, and their sum) do not fit.
        Path p = program("x = param(16000000)\ny = x * x\nl = sum(y)\n");
        Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> Cli.launch(List.of("-Xmx256m"), null, "run", p.toString(), "--dtype", "float32"));
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith(p + ":") && r.err().contains(": error: out of memory in the backward pass (the gradient through "),
                r.err());
        // 256.0 MiB with G1; a little less where the JVM picks another collector (a survivor space is not counted).
        assertTrue(java.util.regex.Pattern.compile("the Java heap's limit is 2[45][0-9]\\.[0-9] MiB; raise it with "
                + "\\./gradscope --max-memory SIZE").matcher(r.err()).find(), r.err());
    }

    // ---- 8: class counts -------------------------------------------------------------------------

    @Test
    void labelsWithMoreClassesThanTheLogitsFailForEverySeed() throws IOException {
        Path p = program("z = param(4, 3)\nt = labels(4, classes=5)\nl = cross_entropy(z, t)\n");
        for (int seed = 0; seed < 6; seed++) {
            assertOneLineError(run("run", p.toString(), "--seed", Integer.toString(seed)), p + ":3:5: error: cross_entropy: the "
                    + "labels 't' are declared with classes=5 but the logits [4, 3] have 3 classes (the last dimension)");
        }
    }

    // ---- messages that did not say enough --------------------------------------------------------

    @Test
    void fileErrorsSayWhy() throws IOException {
        Path missing = tmp.resolve("missing.grad");
        assertOneLineError(run("run", missing.toString()), "error: cannot read " + missing + ": no such file");
        assertOneLineError(run("run", tmp.toString()), "error: cannot read " + tmp + ": is a directory");
        assertOneLineError(run("run", ""), "error: no program given: the path is empty");
        if (!Files.exists(Path.of("-"))) {
            assertOneLineError(run("run", "-"),
                    "error: cannot read -: no such file (a program is not read from standard input; give its file)");
        }
        Path p = program("x = input(2)\nloss = sum(x)\n");
        Path none = tmp.resolve("none.npy");
        assertOneLineError(run("run", p.toString(), "--input", "x=" + none), "error: --input x=" + none + ": cannot read: no such file");
        assertOneLineError(run("run", p.toString(), "--input", "x=" + tmp), "error: --input x=" + tmp + ": cannot read: is a directory");
    }

    @Test
    void permissionDeniedIsSaid() throws IOException {
        Path p = program("x = input(2)\nloss = sum(x)\n");
        Path locked = tmp.resolve("locked.grad");
        Files.writeString(locked, "x = param(2)\nl = sum(x)\n");
        Assumptions.assumeTrue(locked.toFile().setReadable(false, false) && !Files.isReadable(locked),
                "this user can read any file (root)");
        assertOneLineError(run("run", locked.toString()), "error: cannot read " + locked + ": permission denied");
        assertOneLineError(run("run", p.toString(), "--input", "x=" + locked),
                "error: --input x=" + locked + ": cannot read: permission denied");
    }

    @Test
    void aComputedValueGivenWithInputIsSaidToBeComputed() throws IOException {
        Path p = program(MLP);
        Path y = tmp.resolve("y.npy");
        Npy.write(Tensor.zeros(DType.FLOAT32, 2), y);
        assertOneLineError(run("run", p.toString(), "--input", "Y=" + y), "error: --input Y=" + y
                + ": 'Y' is computed by the program (line 3), not a leaf; only input(...), param(...) and labels(...) can be given");
    }

    @Test
    void aLabelPastTwoToTheFiftyThreeIsEchoedExactly() throws IOException {
        Path p = program("z = param(2, 3)\nt = labels(2, classes=3)\nl = cross_entropy(z, t)\n");
        Path t = tmp.resolve("t.npy");
        Npy.write(Tensor.ofLongs(new long[] {0, (1L << 53) + 1}, 2), t);
        assertOneLineError(run("run", p.toString(), "--input", "t=" + t),
                "error: --input t=" + t + ": label 9007199254740993 at index 1 is outside [0, 3)");
    }

    @Test
    void aFloat64InputIsReadIntoAFloat32Run() throws IOException {
        Path p = program("x = input(2, 3)\nloss = sum(x * x)\n");
        Path x = tmp.resolve("x.npy");
        Npy.write(Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3), x);
        Path out = tmp.resolve("out");
        Cli.Result r = run("run", p.toString(), "--input", "x=" + x, "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertEquals("91.0", r.out().strip());
        Tensor v = Npy.read(out.resolve("value/x.npy"), DType.FLOAT32);
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, v.storage().floats());
    }

    @Test
    void theHelpSaysHowToRaiseTheMemoryLimit() {
        Cli.Result r = run("--help");
        assertTrue(r.out().contains("--max-memory SIZE") && r.out().contains("JAVA_OPTS"), r.out());
    }

    // ---- issue 49, 1: an ONNX model's external data from anywhere --------------------------------

    /** y = x @ W with W (2x2 float32) kept in {@code location}, as an exporter writes a large model. */
    private static byte[] externalModel(String location) {
        return model("MatMul", location);
    }

    /** y = OP(x, W), W as {@link #externalModel}. */
    private static byte[] model(String op, String location) {
        OnnxMl.TensorShapeProto.Builder shape = OnnxMl.TensorShapeProto.newBuilder()
                .addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(1))
                .addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(2));
        OnnxMl.TypeProto type = OnnxMl.TypeProto.newBuilder().setTensorType(OnnxMl.TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(shape)).build();
        OnnxMl.TensorProto.Builder w = OnnxMl.TensorProto.newBuilder().setName("W").setDataType(1).addDims(2).addDims(2)
                .setDataLocation(OnnxMl.TensorProto.DataLocation.EXTERNAL)
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("location").setValue(location));
        OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("g")
                .addInput(OnnxMl.ValueInfoProto.newBuilder().setName("x").setType(type)).addInitializer(w)
                .addNode(OnnxMl.NodeProto.newBuilder().setOpType(op).setName("mm").addInput("x").addInput("W").addOutput("y"))
                .addOutput(OnnxMl.ValueInfoProto.newBuilder().setName("y").setType(type));
        return OnnxMl.ModelProto.newBuilder().setIrVersion(8).setProducerName("test")
                .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setDomain("").setVersion(13)).setGraph(g).build().toByteArray();
    }

    @Test
    void externalDataOutsideTheModelsFolderIsRefusedByImportAndByOpen() throws IOException {
        Path secret = Files.write(tmp.resolve("secret.bin"), new byte[16]);
        Path folder = Files.createDirectories(tmp.resolve("m"));
        String rule = "; external data must be a file in the model's folder, named relative to it";
        String[][] cases = {{"/etc/passwd", "an absolute path"}, {secret.toString(), "an absolute path"},
            {"../../../../../../../../etc/passwd", "outside the model's folder"}, {"../secret.bin", "outside the model's folder"},
            {"..\\secret.bin", "outside the model's folder"}, {"C:\\w.bin", "an absolute path"}};
        Path model = folder.resolve("ext.onnx");
        for (String[] c : cases) {
            Files.write(model, externalModel(c[0]));
            String expected = "ext.onnx: initializer 'W' keeps its data in '" + c[0] + "', " + c[1] + rule;
            Path out = tmp.resolve("out");
            assertOneLineError(run("import", model.toString(), "--out", out.toString()), "error: " + expected);
            assertFalse(Files.exists(out), "nothing written");
            // The app's open (File > Open, gradscope open MODEL.onnx) imports through the same step.
            GradscopeException e = assertThrows(GradscopeException.class,
                    () -> ModelImport.run(model, ModelImport.Options.defaults()));
            assertEquals(expected, e.getMessage());
        }
        Files.createSymbolicLink(folder.resolve("w.bin"), secret);
        Files.write(model, externalModel("w.bin"));
        assertOneLineError(run("import", model.toString(), "--out", tmp.resolve("out").toString()),
                "error: ext.onnx: initializer 'W' keeps its data in 'w.bin', a link to a file outside the model's folder" + rule);
    }

    // ---- issue 49, 2, 3: an output that would replace an input, or cannot be written -------------

    @Test
    void anOutputThatIsTheCommandsInputIsRefusedAndTheInputKept() throws IOException {
        String matrix = "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n";
        Path mtx = Files.writeString(tmp.resolve("x.mtx"), matrix);
        assertOneLineError(run("color", mtx.toString(), "--out", mtx.toString()), "error: --out " + mtx + ": is the command's input "
                + mtx + "; writing it would replace it, so name another file");
        Path other = tmp.resolve("sub/../x.mtx");
        Files.createDirectories(tmp.resolve("sub"));
        assertOneLineError(run("color", mtx.toString(), "--out", other.toString()), "error: --out " + other
                + ": is the command's input " + mtx + "; writing it would replace it, so name another file");
        assertEquals(matrix, Files.readString(mtx));
        Path p = program(MLP);
        assertOneLineError(run("open", p.toString(), "--screenshot", p.toString()), "error: --screenshot " + p
                + ": is the command's input " + p + "; writing it would replace it, so name another file");
        assertEquals(MLP, Files.readString(p));
        Path model = Files.copy(ImportCommandTest.MODELS.resolve("mlp/model.onnx"), tmp.resolve("m.onnx"));
        byte[] bytes = Files.readAllBytes(model);
        assertOneLineError(run("open", model.toString(), "--screenshot", model.toString()), "error: --screenshot " + model
                + ": is the command's input " + model + "; writing it would replace it, so name another file");
        assertArrayEquals(bytes, Files.readAllBytes(model));
    }

    @Test
    void anExistingFileIsReplacedOnlyWhenItIsOfTheKindWritten() throws IOException {
        Path mtx = Files.writeString(tmp.resolve("x.mtx"), "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n");
        Path notes = Files.writeString(tmp.resolve("notes.txt"), "mine");
        assertOneLineError(run("color", mtx.toString(), "--out", notes.toString()), "error: --out " + notes + ": it exists and is "
                + "not a .npy file; it is replaced only when it is one (an earlier output): remove it first, or name another file");
        assertEquals("mine", Files.readString(notes));
        Path p = program(MLP);
        Path png = Files.writeString(tmp.resolve("shot.png"), "not a picture");
        assertOneLineError(run("open", p.toString(), "--screenshot", png.toString()), "error: --screenshot " + png + ": it exists and "
                + "is not a PNG file; it is replaced only when it is one (an earlier output): remove it first, or name another file");
        // An earlier .npy (the colors of another run) is replaced, as asked.
        Path colors = tmp.resolve("colors.npy");
        Npy.write(Tensor.ofLongs(new long[] {7, 7, 7}, 3), colors);
        Cli.Result r = run("color", mtx.toString(), "--out", colors.toString());
        assertEquals(0, r.status(), r.err());
        assertArrayEquals(new double[] {0, 0}, Npy.read(colors).toDoubleArray(), "two columns, no conflict: one color");
    }

    @Test
    void anOutputInAFolderThatCannotBeWrittenOrOnAPipeOrDeviceIsOneLineBeforeRunning() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc here");
        Path p = program(MLP);
        Cli.Result r = run("open", p.toString(), "--screenshot", "/proc/x.png");
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("error: --screenshot /proc/x.png: cannot write in /proc ("), r.err());
        Path mtx = Files.writeString(tmp.resolve("x.mtx"), "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n");
        Path fifo = tmp.resolve("colors.npy");
        mkfifo(fifo);
        assertOneLineError(run("color", mtx.toString(), "--out", fifo.toString()),
                "error: --out " + fifo + ": not a regular file (a named pipe); name a file to write");
        // A relative path is said as given, not with the current folder expanded.
        assertOneLineError(run("color", mtx.toString(), "--out", "pom.xml/colors.npy"),
                "error: --out pom.xml/colors.npy: pom.xml is a file, not a folder");
        if (Files.exists(Path.of("/dev/full"))) {
            assertOneLineError(run("color", mtx.toString(), "--out", "/dev/full"),
                    "error: --out /dev/full: not a regular file (a character device); name a file to write");
        }
    }

    // ---- issue 49, 6: a NUL byte in a message ----------------------------------------------------

    @Test
    void aNulByteAFileHoldsIsQuotedInItsMessage() throws IOException {
        Path mtx = Files.writeString(tmp.resolve("nul.mtx"), "%%MatrixMarket matrix coordinate pat\0tern general\n2 2 1\n1 1\n");
        assertOneLineError(run("color", mtx.toString()), "error: " + mtx + ":1: field 'pat\\x00tern' is not read (pattern, real or integer)");
        Path entry = Files.writeString(tmp.resolve("nul2.mtx"), "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1\0 1\n");
        assertOneLineError(run("color", entry.toString()), "error: " + entry + ":3: '1\\x00' is not an integer");
        Path p = program("x = input(3)\nloss = sum(x)\n");
        Path f = Files.write(tmp.resolve("nul.npy"), npy("{'descr': '<f\u00004', 'fortran_order': False, 'shape': (3,), }", 12));
        assertOneLineError(run("run", p.toString(), "--input", "x=" + f),
                "error: --input x=" + f + ": unsupported dtype '<f\\x004' (expected <f4, <f8, <i8 or <i4)");
        Path m = Files.write(tmp.resolve("nul.onnx"), model("Mat\0Mul\u001b[2J", "w.bin"));
        Files.write(tmp.resolve("w.bin"), new byte[16]);
        Cli.Result r = run("import", m.toString(), "--out", tmp.resolve("out").toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("Mat\\x00Mul\\x1b[2J"), r.err());
        assertFalse(r.err().chars().anyMatch(c -> c < 0x20 && c != '\n'), "no control character reaches the terminal: " + r.err());
    }

    // ---- issue 49, 4: internal errors ------------------------------------------------------------

    @Test
    void aProgramOfTwoGigabytesIsRefusedByOpenBeforeTheWindow() throws IOException {
        Path big = program("x = param(2)\nl = sum(x)\n");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(2L << 30);
        }
        assertOneLineError(run("open", big.toString()), "error: cannot read " + big + ": a program of 2147483648 bytes is too large "
                + "(at most 33554432)");
    }

    // ---- issue 49, 9, 10: Matrix Market files accepted or said unclearly ---------------------------

    private void assertColorRefuses(String text, String expected) throws IOException {
        Path mtx = Files.writeString(tmp.resolve("m.mtx"), text);
        assertOneLineError(run("color", mtx.toString()), "error: " + mtx + expected);
    }

    @Test
    void aMatrixMarketFileWithMoreEntriesOrTextAfterThemIsRefusedAtItsLine() throws IOException {
        String head = "%%MatrixMarket matrix coordinate pattern general\n% a comment\n3 3 2\n1 1\n2 2\n";
        assertColorRefuses(head + "3 3\n", ":6: an entry past the 2 the size line declares (line 3)");
        assertColorRefuses(head + "\n% fine\nthe end\n", ":8: unexpected text after the 2 entries: 'the end'");
        Path ok = Files.writeString(tmp.resolve("ok.mtx"), head + "\n% only comments and blank lines after\n\n");
        assertEquals(0, run("color", ok.toString()).status());
    }

    @Test
    void matrixMarketMessagesNameTheDuplicateTheHeaderAfterAMarkAndTheDeclaredSize() throws IOException {
        assertColorRefuses("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 3\n2 3\n",
                ":5: entry (2, 3) is listed twice (first at line 4)");
        Path bom = Files.writeString(tmp.resolve("bom.mtx"), "\uFEFF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n");
        Cli.Result r = run("color", bom.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith(bom + ": 2 x 2, 1 nonzeros"), r.out());
        // A tiny file declaring a billion entries: its end, not the Java heap.
        assertColorRefuses("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1000000000\n1 1 1.5\n",
                ": ends after 1 of 1000000000 entries");
    }

    // ---- issue 49, 5: hangs ----------------------------------------------------------------------

    @Test
    void recolorPassesAreBoundedAndTheLargestCountEnds() throws IOException {
        // A 5-cycle's column coloring stays above its lower bound, so every pass runs.
        Path cycle = Files.writeString(tmp.resolve("c5.mtx"), "%%MatrixMarket matrix coordinate pattern general\n5 5 10\n"
                + "1 2\n2 3\n3 4\n4 5\n5 1\n2 1\n3 2\n4 3\n5 4\n1 5\n");
        assertOneLineError(run("color", cycle.toString(), "--recolor", "2000000000"),
                "error: --recolor must be between 0 and 10000 passes, not 2000000000");
        Cli.Result r = run("color", cycle.toString(), "--recolor", "10000");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("column coloring (natural+recolor): 3 colors") || r.out().contains("column coloring (natural): 3 colors"),
                r.out());
    }

    @Test
    void aDenseJacobianTooLargeToEvaluateIsRefusedWithItsSize() throws IOException {
        Path p = program("x = input(100000, grad=True)\ny = x * 2\nl = sum(y)\n");
        assertOneLineError(run("jacobian", p.toString(), "--of", "y", "--wrt", "x", "--dense"), "error: --dense: the jacobian is "
                + "100000 x 100000 (10000000000 entries), more than --dense evaluates (100000000); leave out --dense to evaluate it "
                + "by its sparsity pattern");
    }

    // ---- issue 49, 10: paths as given, declared sizes --------------------------------------------

    @Test
    void runOutUnderAFileNamesTheFileAsGiven() throws IOException {
        Path p = program(MLP);
        // Relative, under the module's pom.xml (a file): said as typed, not with the current folder expanded.
        assertOneLineError(run("run", p.toString(), "--out", "pom.xml/out"), "error: --out pom.xml/out: 'pom.xml' is a file, not a folder");
        assertOneLineError(run("run", p.toString(), "--out", "./pom.xml/a/b"), "error: --out ./pom.xml/a/b: 'pom.xml' is a file, not a folder");
    }

    @Test
    void anNpyDeclaringMoreThanTheHeapInATinyFileSaysItsDeclaredSize() throws IOException {
        Path p = program("x = input(3)\nloss = sum(x)\n");
        Path f = tmp.resolve("big.npy");
        byte[] head = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2000000000,), }", 0);
        Files.write(f, head);
        try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "rw")) {
            r.setLength(head.length + 16_000_000_000L); // sparse: a few KiB on disk
        }
        Cli.Result r = run("run", p.toString(), "--dtype", "float64", "--input", "x=" + f);
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("error: --input x=" + f + ": its shape [2000000000] declares 2000000000 elements, 14.9 GiB "
                + "as float64, more than fits in the Java heap's limit of "), r.err());
        assertTrue(r.err().strip().endsWith("(raise it with ./gradscope --max-memory SIZE (e.g. 16g) or JAVA_OPTS=-Xmx16g)"), r.err());
    }

    @Test
    void aMapOptionsValueWithoutAnEqualsSignSaysOptionOnce() {
        // picocli said "value for option option '--dim' (NAME=SIZE) should be in KEY=VALUE format but was x".
        assertOneLineError(run("import", "model.onnx", "--out", "out", "--dim", "x"), "error: --dim: 'x' is not NAME=SIZE; see gradscope import --help");
        assertOneLineError(run("open", "model.onnx", "--dim", "batch"), "error: --dim: 'batch' is not NAME=SIZE; see gradscope open --help");
    }
}
