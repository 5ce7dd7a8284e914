package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading .npy files: streamed in chunks into one tensor of the asked dtype; malformed headers are clear errors. */
class NpyTest {
    @TempDir
    Path tmp;

    /** A version-1 file: the header padded to 64 bytes, then {@code data}. */
    static byte[] npy(String header, byte[] data) {
        StringBuilder h = new StringBuilder(header);
        while ((10 + h.length() + 1) % 64 != 0) {
            h.append(' ');
        }
        h.append('\n');
        ByteBuffer b = ByteBuffer.allocate(10 + h.length() + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) h.length());
        b.put(h.toString().getBytes(StandardCharsets.ISO_8859_1)).put(data);
        return b.array();
    }

    private static byte[] doubles(double... v) {
        ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (double d : v) {
            b.putDouble(d);
        }
        return b.array();
    }

    private Path file(byte[] bytes) throws IOException {
        Path f = tmp.resolve("x.npy");
        Files.write(f, bytes);
        return f;
    }

    private String errorOf(byte[] bytes) throws IOException {
        Path f = file(bytes);
        GradscopeException e = assertThrows(GradscopeException.class, () -> Npy.read(f, DType.FLOAT32));
        assertTrue(e.getMessage().startsWith(f + ": "), e.getMessage());
        return e.getMessage().substring(f.toString().length() + 2);
    }

    @Test
    void everyDtypeIsReadAcrossChunkBoundaries() throws IOException {
        double[] v = new double[1000];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sin(i) * 1e3;
        }
        Path f8 = file(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (10, 100), }", doubles(v)));
        for (int chunk : new int[] {1, 7, 8, 20, 4096, Npy.CHUNK}) {
            Tensor d = Npy.read(f8, DType.FLOAT64, false, chunk);
            assertEquals(DType.FLOAT64, d.dtype());
            assertArrayEquals(new int[] {10, 100}, d.shape());
            assertArrayEquals(v, d.toDoubleArray(), 0, "chunk " + chunk);
            Tensor s = Npy.read(f8, DType.FLOAT32, false, chunk);
            assertEquals(DType.FLOAT32, s.dtype());
            for (int i = 0; i < v.length; i++) {
                assertEquals((float) v[i], s.storage().floats()[i], 0, "chunk " + chunk + " element " + i);
            }
        }
        ByteBuffer f4 = ByteBuffer.allocate(4 * 5).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer i4 = ByteBuffer.allocate(4 * 5).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer i8 = ByteBuffer.allocate(8 * 5).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 5; i++) {
            f4.putFloat(i + 0.25f);
            i4.putInt(-i);
            i8.putLong((1L << 53) + 1 + i);
        }
        Path ff = file(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f4.array()));
        assertArrayEquals(new double[] {0.25, 1.25, 2.25, 3.25, 4.25}, Npy.read(ff, DType.FLOAT64, false, 6).toDoubleArray(), 0);
        assertArrayEquals(new float[] {0.25f, 1.25f, 2.25f, 3.25f, 4.25f}, Npy.read(ff, DType.FLOAT32, false, 6).storage().floats());
        Path fi = file(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", i4.array()));
        assertArrayEquals(new long[] {0, -1, -2, -3, -4}, Npy.read(fi, DType.FLOAT32, false, 6).storage().longs());
        Path fl = file(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }", i8.array()));
        Tensor l = Npy.read(fl, DType.FLOAT32, false, 12);
        assertEquals(DType.INT64, l.dtype(), "integers stay int64 whatever the float dtype");
        assertEquals((1L << 53) + 1, l.storage().longs()[0], "exact past 2^53");
        assertEquals((1L << 53) + 5, l.storage().longs()[4]);
    }

    @Test
    void aFileLargerThanTwoGigabytesIsReadWithoutLoadingItWhole() throws IOException {
        // A sparse file: 3 GiB long, of which only the header and six doubles are written.
        Path f = tmp.resolve("big.npy");
        Files.write(f, npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", doubles(1, 2, 3, 4, 5, 6)));
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(3L << 30);
        }
        long t0 = System.nanoTime();
        Tensor t = Npy.read(f, DType.FLOAT32);
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6}, t.toDoubleArray(), 0);
        assertTrue(System.nanoTime() - t0 < 5e9, "only the header and the data it declares are read");
    }

    @Test
    void aFloat64FileReadAsFloat32AllocatesOneFloat32Copy() throws IOException {
        int n = 4 << 20;
        ByteBuffer data = ByteBuffer.allocate(8 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            data.putDouble(i);
        }
        Path f = file(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (" + n + ",), }", data.array()));
        data = null;
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        Npy.read(f, DType.FLOAT32); // warm up the classes involved
        long before = mx.getThreadAllocatedBytes(id);
        Tensor t = Npy.read(f, DType.FLOAT32);
        long allocated = mx.getThreadAllocatedBytes(id) - before;
        assertEquals(DType.FLOAT32, t.dtype());
        assertEquals(n - 1, t.storage().floats()[n - 1]);
        // The float32 result (16 MiB) and a 1 MiB chunk buffer; not the file's 32 MiB of bytes, nor a float64 copy.
        assertTrue(allocated < 4L * n + (3 << 20), "allocated " + allocated + " bytes to read " + 4L * n + " bytes of float32");
    }

    @Test
    void aNegativeDimensionIsAnError() throws IOException {
        assertEquals("bad shape in .npy header: (-1,) has a negative dimension",
                errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", new byte[0])));
    }

    @Test
    void aVersionTwoHeaderLongerThanTheFileIsAnError() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0}).putInt(0x7ffffff8);
        assertEquals("truncated .npy header (it declares 2147483640 bytes, the file has 52 after the preamble)", errorOf(b.array()));
    }

    @Test
    void aShapeWhoseByteCountOverflowsIsAnError() throws IOException {
        assertEquals("its shape (1073741824, 1073741824, 4) has 4611686018427387904 elements, more than a tensor can hold "
                + "(2147483639)", errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824, 4), }",
                new byte[0])));
        assertEquals("its shape (3, 99999999999) has a dimension of 99999999999, more than a tensor can hold (2147483639)",
                errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 99999999999), }", new byte[0])));
        assertEquals("holds 1 elements but its shape [2, 3] needs 6",
                errorOf(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", doubles(1))));
    }

    @Test
    void aStructuredDtypeIsSaidToBeUnsupported() throws IOException {
        assertEquals("a structured dtype (a record with named fields) is not supported (expected <f4, <f8, <i8 or <i4)",
                errorOf(npy("{'descr': [('a', '<f4'), ('b', '<i8')], 'fortran_order': False, 'shape': (3,), }", new byte[36])));
    }

    @Test
    void aFileThatCannotBeReadSaysWhy() throws IOException {
        GradscopeException e = assertThrows(GradscopeException.class, () -> Npy.read(tmp.resolve("none.npy")));
        assertEquals(tmp.resolve("none.npy") + ": cannot read: no such file", e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Npy.read(tmp));
        assertEquals(tmp + ": cannot read: is a directory", e.getMessage());
    }

    @Test
    void writeThenReadRoundTripsEveryDtypeAndViews() throws IOException {
        Tensor a = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Path f = tmp.resolve("a.npy");
        Npy.write(a.viewPermute(1, 0), f);
        assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6}, Npy.read(f).toDoubleArray(), 0);
        Npy.write(a.viewNarrow(0, 1, 1), f);
        assertArrayEquals(new double[] {4, 5, 6}, Npy.read(f).toDoubleArray(), 0);
        Npy.write(Tensor.of(new float[] {1.5f, -2}, 2), f);
        assertArrayEquals(new double[] {1.5, -2}, Npy.read(f).toDoubleArray(), 0);
        Npy.write(Tensor.ofLongs(new long[] {(1L << 53) + 1}, 1), f);
        assertEquals((1L << 53) + 1, Npy.read(f).storage().longs()[0]);
        Npy.write(Tensor.scalar(7, DType.FLOAT64), f);
        assertEquals(7, Npy.read(f).item());
    }
}
