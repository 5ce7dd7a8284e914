package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.InputFiles;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NumPy {@code .npy} files, version 1 and 2: little-endian {@code <f4}, {@code <f8}, {@code <i8},
 * {@code <i4}, C order, any rank including 0-d. Anything else is a clear error naming the file.
 *
 * <p>Data is streamed in chunks from the file straight into the tensor's storage, converted on the
 * way: one copy, in the dtype asked for, whatever the file's size (see Note [Reading .npy]).
 *
 * <pre>{@code
 * Tensor x = Npy.read(Path.of("x.npy"), DType.FLOAT32);   // <f4 or <f8 -> float32; <i4 or <i8 -> int64
 * }</pre>
 */
public final class Npy {
    // Note [Reading .npy]: the header is checked with long arithmetic against the file's size before
    // anything is allocated (a negative or overflowing shape, a header length past the end), then
    // the data is read CHUNK bytes at a time. Reading the whole file into a byte[] first fails past
    // 2 GB and held the bytes, a float64 copy and the run's copy at once.
    /** The first bytes of every .npy file. */
    public static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern DESCR_KEY = Pattern.compile("'descr'\\s*:\\s*(\\S)");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

    /** Bytes read per chunk. */
    static final int CHUNK = 1 << 20;

    /** Longest header accepted (NumPy's own reader refuses more than 10,000 bytes by default). */
    static final int MAX_HEADER = 1 << 20;

    private Npy() {
    }

    /** Reads a file: float files become float64 tensors, integer files int64. */
    public static Tensor read(Path file) {
        return read(file, DType.FLOAT64);
    }

    /** Reads a file: float files ({@code <f4}, {@code <f8}) become {@code floats} tensors, integer files int64. */
    public static Tensor read(Path file, DType floats) {
        return read(file, floats, false, CHUNK);
    }

    /** Reads a file in C or Fortran order (reference data written by NumPy from transposed arrays). */
    public static Tensor readAnyOrder(Path file) {
        return read(file, DType.FLOAT64, true, CHUNK);
    }

    static Tensor read(Path file, DType floats, boolean allowFortran, int chunk) {
        if (!floats.isFloating()) {
            throw new IllegalArgumentException("floats must be a float dtype, not " + floats);
        }
        String name = file.toString();
        String problem = InputFiles.problem(file);
        if (problem != null) {
            throw new GradscopeException(name + ": cannot read: " + problem);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return read(name, ch, floats, allowFortran, chunk);
        } catch (IOException e) {
            throw new GradscopeException(name + ": cannot read: " + InputFiles.reason(e));
        }
    }

    private static Tensor read(String name, FileChannel ch, DType floats, boolean allowFortran, int chunk) throws IOException {
        long size = ch.size();
        ByteBuffer pre = ByteBuffer.allocate((int) Math.min(size, 12)).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, pre, 0);
        if (size < 10 || !Arrays.equals(Arrays.copyOf(pre.array(), 6), MAGIC)) {
            throw new GradscopeException(name + ": not a .npy file (no NumPy magic header)");
        }
        int major = pre.get(6);
        long headerLen;
        int start;
        if (major == 1) {
            headerLen = pre.getShort(8) & 0xffff;
            start = 10;
        } else if ((major == 2 || major == 3) && size >= 12) {
            headerLen = pre.getInt(8) & 0xffffffffL;
            start = 12;
        } else if (major == 2 || major == 3) {
            throw new GradscopeException(name + ": truncated .npy header (the file ends after " + size + " bytes)");
        } else {
            throw new GradscopeException(name + ": unsupported .npy version " + major);
        }
        if (start + headerLen > size) {
            throw new GradscopeException(name + ": truncated .npy header (it declares " + headerLen + " bytes, the file has "
                    + (size - start) + " after the preamble)");
        }
        if (headerLen > MAX_HEADER) {
            throw new GradscopeException(name + ": the .npy header is " + headerLen + " bytes long, more than the " + MAX_HEADER
                    + " accepted");
        }
        ByteBuffer hb = ByteBuffer.allocate((int) headerLen);
        readFully(ch, hb, start);
        String header = new String(hb.array(), major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        String descr = descr(name, header);
        boolean fortran = "True".equals(group(name, FORTRAN, header, "fortran_order"));
        if (fortran && !allowFortran) {
            throw new GradscopeException(name + ": Fortran-order arrays are not supported; save it in C order "
                    + "(numpy.ascontiguousarray)");
        }
        String shapeText = group(name, SHAPE, header, "shape");
        int[] declared = parseShape(name, shapeText);
        int[] shape = declared.clone();
        if (fortran) {
            for (int i = 0; i < shape.length; i++) {
                shape[i] = declared[declared.length - 1 - i];
            }
        }
        int width = switch (descr) {
            case "<f4", "<i4" -> 4;
            case "<f8", "<i8" -> 8;
            default -> throw new GradscopeException(name + ": unsupported dtype '" + descr
                    + "' (expected <f4, <f8, <i8 or <i4)");
        };
        long n = Shapes.numel(shape);
        if (n > Shapes.MAX_NUMEL) {
            throw new GradscopeException(name + ": its shape (" + shapeText.strip() + ") has " + Shapes.numelText(shape)
                    + " elements, more than a tensor can hold (" + Shapes.MAX_NUMEL + ")");
        }
        long data = start + headerLen;
        if (size - data < n * width) {
            throw new GradscopeException(name + ": holds " + (size - data) / width + " elements but its shape "
                    + Arrays.toString(shape) + " needs " + n);
        }
        boolean integers = descr.charAt(1) == 'i';
        DType dt = integers ? DType.INT64 : floats;
        // A file may declare more than the heap holds (a sparse file is tiny on disk): say its size, not "out of memory".
        long bytes = n * dt.bytes();
        Tensor t = null;
        if (bytes <= HeapLimit.bytes()) {
            try {
                t = Tensor.zeros(dt, shape);
            } catch (HeapLimit.OutOfMemory | OutOfMemoryError e) {
                t = null;
            }
        }
        if (t == null) {
            throw new GradscopeException(name + ": its shape " + Arrays.toString(shape) + " declares " + n + " elements, "
                    + HeapLimit.human(bytes) + " as " + dt + ", more than fits in " + HeapLimit.limit() + " (" + HeapLimit.RAISE + ")");
        }
        fill(ch, data, n, descr, t.storage().data(), chunk);
        return fromC(t, fortran);
    }

    /** Reads {@code n} elements of type {@code descr} from {@code at} into {@code out}, {@code chunk} bytes at a time. */
    private static void fill(FileChannel ch, long at, long n, String descr, Object out, int chunk) throws IOException {
        int width = descr.charAt(2) == '8' ? 8 : 4;
        int perChunk = Math.max(1, chunk / width);
        ByteBuffer buf = ByteBuffer.allocate(perChunk * width).order(ByteOrder.LITTLE_ENDIAN);
        long pos = at;
        int i = 0;
        while (i < n) {
            int m = (int) Math.min(perChunk, n - i);
            buf.clear().limit(m * width);
            readFully(ch, buf, pos);
            pos += (long) m * width;
            switch (descr) {
                case "<f4" -> {
                    if (out instanceof float[] f) {
                        buf.asFloatBuffer().get(f, i, m);
                    } else {
                        double[] d = (double[]) out;
                        for (int k = 0; k < m; k++) {
                            d[i + k] = buf.getFloat();
                        }
                    }
                }
                case "<f8" -> {
                    if (out instanceof double[] d) {
                        buf.asDoubleBuffer().get(d, i, m);
                    } else {
                        float[] f = (float[]) out;
                        for (int k = 0; k < m; k++) {
                            f[i + k] = (float) buf.getDouble();
                        }
                    }
                }
                case "<i8" -> buf.asLongBuffer().get((long[]) out, i, m);
                default -> {
                    long[] l = (long[]) out;
                    for (int k = 0; k < m; k++) {
                        l[i + k] = buf.getInt();
                    }
                }
            }
            i += m;
        }
    }

    /** Fills {@code buf} from its position to its limit with the bytes at {@code at}, then flips it. */
    private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        long pos = at;
        while (buf.hasRemaining()) {
            int r = ch.read(buf, pos);
            if (r < 0) {
                throw new EOFException("the file ended early (it changed while being read?)");
            }
            pos += r;
        }
        buf.flip();
    }

    /** A Fortran-order file is C order with the axes reversed: permute them back and copy. */
    private static Tensor fromC(Tensor t, boolean fortran) {
        if (!fortran) {
            return t;
        }
        int[] perm = new int[t.rank()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = perm.length - 1 - i;
        }
        Tensor out = Tensor.zeros(t.dtype(), t.viewPermute(perm).shape());
        t.backend().copy(t.viewPermute(perm), out);
        return out;
    }

    private static String descr(String name, String header) {
        Matcher m = DESCR.matcher(header);
        if (m.find()) {
            return m.group(1);
        }
        Matcher key = DESCR_KEY.matcher(header);
        if (key.find()) {
            String kind = key.group(1).equals("[") ? "a structured dtype (a record with named fields)" : "this dtype";
            throw new GradscopeException(name + ": " + kind + " is not supported (expected <f4, <f8, <i8 or <i4)");
        }
        return group(name, DESCR, header, "descr");
    }

    private static String group(String name, Pattern p, String header, String key) {
        Matcher m = p.matcher(header);
        if (!m.find()) {
            throw new GradscopeException(name + ": .npy header has no '" + key + "'");
        }
        return m.group(1);
    }

    private static int[] parseShape(String name, String s) {
        List<Integer> dims = new ArrayList<>();
        for (String part : s.split(",")) {
            String t = part.trim();
            if (!t.isEmpty()) {
                long d;
                try {
                    d = Long.parseLong(t.endsWith("L") ? t.substring(0, t.length() - 1) : t);
                } catch (NumberFormatException e) {
                    throw new GradscopeException(name + ": bad shape in .npy header: (" + s + ")");
                }
                if (d < 0) {
                    throw new GradscopeException(name + ": bad shape in .npy header: (" + s + ") has a negative dimension");
                }
                if (d > Shapes.MAX_NUMEL) {
                    throw new GradscopeException(name + ": its shape (" + s + ") has a dimension of " + t
                            + ", more than a tensor can hold (" + Shapes.MAX_NUMEL + ")");
                }
                dims.add((int) d);
            }
        }
        return dims.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Writes a tensor: float32 as {@code <f4}, float64 as {@code <f8}, int64 as {@code <i8}; streamed, any size. */
    public static void write(Tensor t, Path file) throws IOException {
        String descr = switch (t.dtype()) {
            case FLOAT32 -> "<f4";
            case FLOAT64 -> "<f8";
            case INT64 -> "<i8";
        };
        StringBuilder shape = new StringBuilder("(");
        for (int i = 0; i < t.rank(); i++) {
            shape.append(t.shape()[i]).append(t.rank() == 1 ? "," : (i + 1 < t.rank() ? ", " : ""));
        }
        shape.append(")");
        StringBuilder header = new StringBuilder("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }");
        while ((10 + header.length() + 1) % 64 != 0) {
            header.append(' ');
        }
        header.append('\n');
        Tensor c = t.toDevice(Device.CPU).contiguous();
        Object data = c.storage().data();
        int width = t.dtype().bytes();
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer head = ByteBuffer.allocate(10 + header.length()).order(ByteOrder.LITTLE_ENDIAN);
            head.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) header.length());
            head.put(header.toString().getBytes(StandardCharsets.ISO_8859_1)).flip();
            writeFully(ch, head);
            int perChunk = CHUNK / width;
            ByteBuffer buf = ByteBuffer.allocate(perChunk * width).order(ByteOrder.LITTLE_ENDIAN);
            long n = c.numel();
            int off = c.offset();
            for (int i = 0; i < n; i += perChunk) {
                int m = (int) Math.min(perChunk, n - i);
                buf.clear();
                switch (c.dtype()) {
                    case FLOAT32 -> buf.asFloatBuffer().put((float[]) data, off + i, m);
                    case FLOAT64 -> buf.asDoubleBuffer().put((double[]) data, off + i, m);
                    case INT64 -> buf.asLongBuffer().put((long[]) data, off + i, m);
                }
                buf.limit(m * width);
                writeFully(ch, buf);
            }
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }
}
