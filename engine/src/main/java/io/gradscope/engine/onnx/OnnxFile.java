package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.gradscope.engine.GradscopeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reading an ONNX file: the model protobuf (with one-line errors for a file that is not a model, a
 * truncated one, or a model without a graph) and the values of its tensors, external data included.
 */
final class OnnxFile {
    private final Path path;
    private final String name;

    OnnxFile(Path path) {
        this.path = path;
        this.name = path.getFileName() == null ? path.toString() : path.getFileName().toString();
    }

    /** An error about this file: {@code model.onnx: WHAT}. */
    GradscopeException error(String what) {
        return new GradscopeException(name + ": " + what);
    }

    String name() {
        return name;
    }

    OnnxMl.ModelProto read() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw error("cannot read the file (" + (e.getMessage() == null ? e : e.getMessage()) + ")");
        }
        if (bytes.length == 0) {
            throw error("not an ONNX model: the file is empty");
        }
        OnnxMl.ModelProto m;
        try {
            m = OnnxMl.ModelProto.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            String why = e.getMessage() == null ? "" : e.getMessage();
            if (why.contains("ended unexpectedly") || why.contains("truncated")) {
                throw error("not an ONNX model: the file is truncated (it ends in the middle of a protobuf field)");
            }
            throw error("not an ONNX model: its bytes are not an ONNX protobuf (" + firstLine(why) + ")");
        } catch (RuntimeException e) {
            throw error("not an ONNX model: its bytes are not an ONNX protobuf (" + firstLine(String.valueOf(e.getMessage())) + ")");
        }
        if (!m.hasGraph() || m.getIrVersion() <= 0) {
            throw error("not an ONNX model: the protobuf has no " + (m.hasGraph() ? "IR version" : "model graph")
                    + " (another kind of protobuf message?)");
        }
        if (m.getGraph().getNodeCount() == 0) {
            throw error("the model's graph has no nodes");
        }
        return m;
    }

    private static String firstLine(String s) {
        int end = s.indexOf(". ");
        String one = end < 0 ? s : s.substring(0, end + 1);
        return one.length() > 160 ? one.substring(0, 160) + "..." : one;
    }

    /** The value of a tensor proto (an initializer or a Constant's attribute). */
    Const tensor(OnnxMl.TensorProto t, String what) {
        int[] shape = new int[t.getDimsCount()];
        long n = 1;
        for (int i = 0; i < shape.length; i++) {
            long d = t.getDims(i);
            if (d < 0 || d > Integer.MAX_VALUE) {
                throw error(what + " has the invalid dimension " + d);
            }
            shape[i] = (int) d;
            n *= d;
        }
        if (n > Integer.MAX_VALUE - 8) {
            throw error(what + " is too large (" + n + " elements)");
        }
        int type = t.getDataType();
        int width = switch (type) {
            case Const.FLOAT, Const.INT32 -> 4;
            case Const.INT64, Const.DOUBLE -> 8;
            case Const.BOOL, 2, 3 -> 1; // bool, uint8, int8
            case Const.FLOAT16, 4, 5 -> 2; // float16, uint16, int16
            default -> throw error(what + " has the element type " + typeName(type) + ", which the import does not read");
        };
        ByteString raw = t.getRawData();
        if (t.getDataLocation() == OnnxMl.TensorProto.DataLocation.EXTERNAL) {
            raw = external(t, what, n * width);
        }
        double[] data = new double[(int) n];
        if (!raw.isEmpty() || t.getDataLocation() == OnnxMl.TensorProto.DataLocation.EXTERNAL) {
            if (raw.size() != n * width) {
                throw error(what + " holds " + raw.size() + " bytes but its shape and type need " + n * width);
            }
            ByteBuffer b = raw.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                data[i] = switch (type) {
                    case Const.FLOAT -> b.getFloat();
                    case Const.DOUBLE -> b.getDouble();
                    case Const.INT64 -> b.getLong();
                    case Const.INT32 -> b.getInt();
                    case Const.BOOL, 2 -> b.get() & 0xff;
                    case 3 -> b.get();
                    case 4 -> b.getShort() & 0xffff;
                    case 5 -> b.getShort();
                    default -> half(b.getShort());
                };
            }
            return Const.of(shape, data, type);
        }
        int have = switch (type) {
            case Const.FLOAT -> t.getFloatDataCount();
            case Const.DOUBLE -> t.getDoubleDataCount();
            case Const.INT64 -> t.getInt64DataCount();
            default -> t.getInt32DataCount();
        };
        if (have != n) {
            throw error(what + " holds " + have + " values but its shape " + java.util.Arrays.toString(shape) + " needs " + n);
        }
        for (int i = 0; i < n; i++) {
            data[i] = switch (type) {
                case Const.FLOAT -> t.getFloatData(i);
                case Const.DOUBLE -> t.getDoubleData(i);
                case Const.INT64 -> t.getInt64Data(i);
                case Const.FLOAT16 -> half((short) t.getInt32Data(i));
                default -> t.getInt32Data(i);
            };
        }
        return Const.of(shape, data, type);
    }

    /** Tensor data kept in a file beside the model ({@code location}, {@code offset}, {@code length}). */
    private ByteString external(OnnxMl.TensorProto t, String what, long bytes) {
        String location = null;
        long offset = 0;
        long length = -1;
        for (OnnxMl.StringStringEntryProto e : t.getExternalDataList()) {
            switch (e.getKey()) {
                case "location" -> location = e.getValue();
                case "offset" -> offset = parseLong(e.getValue(), what);
                case "length" -> length = parseLong(e.getValue(), what);
                default -> { }
            }
        }
        if (location == null) {
            throw error(what + " keeps its data outside the model but names no file (external data without a location)");
        }
        if (offset < 0 || length < -1) {
            throw error(what + " has the invalid external-data " + (offset < 0 ? "offset " + offset : "length " + length));
        }
        if (length >= 0 && length != bytes) {
            throw error(what + " declares " + length + " bytes of external data but its shape and type need " + bytes);
        }
        if (bytes > Integer.MAX_VALUE - 8) {
            throw error(what + " needs " + bytes + " bytes of external data; the import reads at most " + (Integer.MAX_VALUE - 8)
                    + " bytes a tensor");
        }
        Path file = insideModelFolder(location, what);
        // The checked path itself, not following a link put in its place since.
        try (FileChannel f = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            if (offset > f.size() - bytes) {
                throw error(what + " needs bytes " + offset + ".." + (offset + bytes) + " of '" + location
                        + "', which has only " + f.size());
            }
            ByteBuffer b = ByteBuffer.allocate((int) bytes);
            while (b.hasRemaining()) {
                if (f.read(b, offset + b.position()) < 0) {
                    throw new IOException("the file ended early");
                }
            }
            return com.google.protobuf.UnsafeByteOperations.unsafeWrap(b.array());
        } catch (IOException e) {
            throw error(what + ": cannot read its external data '" + location + "' (" + e.getMessage() + ")");
        }
    }

    /**
     * The file an external-data {@code location} names, which must lie in the model's folder: a
     * location that is absolute (a Windows drive or share too), climbs out with {@code ..}, or reaches
     * outside through a symbolic link is refused, so a model cannot make the import read (and write
     * into its parameter files) any file on the machine. A backslash separates folders, as in a model
     * saved on Windows.
     */
    private Path insideModelFolder(String location, String what) {
        String shown = location;
        String slashed = location.replace('\\', '/');
        if (slashed.isEmpty() || slashed.startsWith("/") || slashed.matches("(?s)[A-Za-z]:.*")) {
            throw error(what + " keeps its data in '" + shown + "', " + (slashed.isEmpty() ? "an empty path"
                    : "an absolute path") + "; external data must be a file in the model's folder, named relative to it");
        }
        Path dir = path.toAbsolutePath().getParent();
        Path file;
        try {
            file = dir.resolve(slashed).normalize();
        } catch (InvalidPathException e) {
            throw error(what + " keeps its data in '" + shown + "', which is not a valid path");
        }
        if (!file.startsWith(dir.normalize())) {
            throw error(what + " keeps its data in '" + shown + "', outside the model's folder; external data must be a file in "
                    + "the model's folder, named relative to it");
        }
        if (!Files.isRegularFile(file)) {
            String problem = io.gradscope.engine.InputFiles.problem(file);
            throw error(what + " keeps its data in '" + shown + "', which " + (!Files.exists(file)
                    ? "is missing (external data is read from the model's folder)"
                    : "cannot be read: " + (problem == null ? "not a regular file" : problem)));
        }
        try {
            Path real = file.toRealPath();
            if (!real.startsWith(dir.toRealPath())) {
                throw error(what + " keeps its data in '" + shown + "', a link to a file outside the model's folder; external data "
                        + "must be a file in the model's folder, named relative to it");
            }
            return real;
        } catch (IOException e) {
            throw error(what + ": cannot read its external data '" + shown + "' (" + e.getMessage() + ")");
        }
    }

    private long parseLong(String v, String what) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw error(what + " has the invalid external-data number '" + v + "'");
        }
    }

    /** IEEE half precision to double (Java 17 has no Float.float16ToFloat). */
    static double half(short h) {
        int bits = h & 0xffff;
        int sign = (bits & 0x8000) != 0 ? -1 : 1;
        int exp = (bits >> 10) & 0x1f;
        int mant = bits & 0x3ff;
        if (exp == 0) {
            return sign * mant * Math.pow(2, -24);
        }
        if (exp == 31) {
            return mant == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        return sign * (1 + mant / 1024.0) * Math.pow(2, exp - 15);
    }

    static String typeName(int type) {
        return switch (type) {
            case Const.FLOAT -> "float32";
            case 2 -> "uint8";
            case 3 -> "int8";
            case 4 -> "uint16";
            case 5 -> "int16";
            case Const.INT32 -> "int32";
            case Const.INT64 -> "int64";
            case 8 -> "string";
            case Const.BOOL -> "bool";
            case Const.FLOAT16 -> "float16";
            case Const.DOUBLE -> "float64";
            case 12 -> "uint32";
            case 13 -> "uint64";
            case 16 -> "bfloat16";
            default -> "type " + type;
        };
    }
}
