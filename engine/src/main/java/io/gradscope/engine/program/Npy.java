package io.gradscope.engine.program;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NumPy {@code .npy} files, version 1 and 2: little-endian {@code <f4}, {@code <f8}, {@code <i8},
 * {@code <i4}, C order, any rank including 0-d. Anything else is a clear error naming the file.
 */
public final class Npy {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

    private Npy() {
    }

    /** Reads a file: float files become float64 tensors, integer files int64. */
    public static Tensor read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new GradscopeException(file + ": cannot read: " + e.getMessage());
        }
        return parse(file.toString(), bytes, false);
    }

    /** Reads a file in C or Fortran order (reference data written by NumPy from transposed arrays). */
    public static Tensor readAnyOrder(Path file) {
        try {
            return parse(file.toString(), Files.readAllBytes(file), true);
        } catch (IOException e) {
            throw new GradscopeException(file + ": cannot read: " + e.getMessage());
        }
    }

    static Tensor parse(String name, byte[] b, boolean allowFortran) {
        if (b.length < 10 || !java.util.Arrays.equals(java.util.Arrays.copyOf(b, 6), MAGIC)) {
            throw new GradscopeException(name + ": not a .npy file (no NumPy magic header)");
        }
        int major = b[6];
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int headerLen;
        int start;
        if (major == 1) {
            headerLen = buf.getShort(8) & 0xffff;
            start = 10;
        } else if (major == 2 || major == 3) {
            headerLen = buf.getInt(8);
            start = 12;
        } else {
            throw new GradscopeException(name + ": unsupported .npy version " + major);
        }
        if (start + headerLen > b.length || headerLen < 0) {
            throw new GradscopeException(name + ": truncated .npy header");
        }
        String header = new String(b, start, headerLen, StandardCharsets.ISO_8859_1);
        String descr = group(name, DESCR, header, "descr");
        boolean fortran = "True".equals(group(name, FORTRAN, header, "fortran_order"));
        if (fortran && !allowFortran) {
            throw new GradscopeException(name + ": Fortran-order arrays are not supported; save it in C order "
                    + "(numpy.ascontiguousarray)");
        }
        int[] declared = parseShape(name, group(name, SHAPE, header, "shape"));
        int[] shape = declared.clone();
        if (fortran) {
            for (int i = 0; i < shape.length; i++) {
                shape[i] = declared[declared.length - 1 - i];
            }
        }
        long n = 1;
        for (int d : shape) {
            n *= d;
        }
        int width = switch (descr) {
            case "<f4", "<i4" -> 4;
            case "<f8", "<i8" -> 8;
            default -> throw new GradscopeException(name + ": unsupported dtype '" + descr
                    + "' (expected <f4, <f8, <i8 or <i4)");
        };
        int data = start + headerLen;
        if (b.length - data < n * width) {
            throw new GradscopeException(name + ": holds " + (b.length - data) / width + " elements but its shape "
                    + java.util.Arrays.toString(shape) + " needs " + n);
        }
        buf.position(data);
        if (descr.charAt(1) == 'i') {
            long[] v = new long[(int) n];
            for (int i = 0; i < n; i++) {
                v[i] = width == 8 ? buf.getLong() : buf.getInt();
            }
            return fromC(Tensor.ofLongs(v, shape), fortran);
        }
        double[] v = new double[(int) n];
        for (int i = 0; i < n; i++) {
            v[i] = width == 8 ? buf.getDouble() : buf.getFloat();
        }
        return fromC(Tensor.of(v, shape), fortran);
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
                try {
                    dims.add(Integer.parseInt(t.replace("L", "")));
                } catch (NumberFormatException e) {
                    throw new GradscopeException(name + ": bad shape in .npy header: (" + s + ")");
                }
            }
        }
        return dims.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Writes a tensor: float32 as {@code <f4}, float64 as {@code <f8}, int64 as {@code <i8}. */
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
        double[] d = t.toDoubleArray();
        int width = t.dtype().bytes();
        ByteBuffer out = ByteBuffer.allocate(10 + header.length() + d.length * width).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) header.length());
        out.put(header.toString().getBytes(StandardCharsets.ISO_8859_1));
        for (double v : d) {
            switch (t.dtype()) {
                case FLOAT32 -> out.putFloat((float) v);
                case FLOAT64 -> out.putDouble(v);
                case INT64 -> out.putLong((long) v);
            }
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, out.array());
    }

    /** Reads a float file as the given dtype. */
    public static Tensor read(Path file, DType dtype) {
        return read(file).to(dtype);
    }
}
