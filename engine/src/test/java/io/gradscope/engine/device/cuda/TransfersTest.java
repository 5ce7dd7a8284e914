package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/**
 * Uploads and downloads go in chunks with long byte offsets, so 2 GiB or more never needs an
 * int-sized buffer. Here the chunk is made small, so a few thousand elements cross many chunk
 * boundaries (and partial last chunks) through the stand-in.
 */
class TransfersTest {

    @Test
    void tensorsCrossChunkBoundariesIntact() {
        StandIn.assumeCuda();
        boolean standIn = StandIn.running();
        int saved = Transfers.chunkBytes;
        Transfers.chunkBytes = 1000;
        try {
            int n = 12345;
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = (i % 97) * 1.5 - 40 + i * 1e-3;
            }
            for (DType dt : DType.values()) {
                double[] expect = Tensor.fromDoubles(dt, v, n).toDoubleArray();
                // From a view with an offset, to the device, and back.
                double[] padded = new double[n + 3];
                System.arraycopy(expect, 0, padded, 3, n);
                Tensor host = Tensor.fromDoubles(dt, padded, n + 3).viewNarrow(0, 3, n);
                long copies = standIn ? StandIn.copyCalls() : 0;
                Tensor dev = host.toDevice(Device.CUDA);
                if (standIn) {
                    long up = StandIn.copyCalls() - copies;
                    int perChunk = Transfers.chunkElements(dt.bytes());
                    assertTrue(up >= (n + perChunk - 1) / perChunk, dt + ": " + up + " copies");
                }
                assertArrayEquals(expect, dev.toDoubleArray(), dt.toString());
                // A device view that starts inside a chunk.
                double[] part = java.util.Arrays.copyOfRange(expect, 777, 777 + 5000);
                assertArrayEquals(part, dev.viewNarrow(0, 777, 5000).toDoubleArray(), dt + " view");
            }
        } finally {
            Transfers.chunkBytes = saved;
        }
    }

    @Test
    void anUploadReadsTheHostTensorFromItsOffset() {
        StandIn.assumeCuda();
        double[] v = {9, 9, 1, 2, 3, 4};
        for (DType dt : DType.values()) {
            Tensor host = Tensor.fromDoubles(dt, v, 6).viewNarrow(0, 2, 4);
            assertArrayEquals(new double[] {1, 2, 3, 4}, host.toDevice(Device.CUDA).toDoubleArray(), dt.toString());
        }
    }
}
