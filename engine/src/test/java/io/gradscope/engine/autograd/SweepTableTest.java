package io.gradscope.engine.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sweep's per-node table against a plain list: every node found with its count and gradient, across growth. */
class SweepTableTest {
    @Test
    void keepsEachNodesCountAndGradientAcrossGrowth() {
        SweepTable table = new SweepTable(4);
        List<Node> nodes = new ArrayList<>();
        List<Tensor> grads = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            Tensor t = Tensor.zeros(DType.FLOAT32, 1);
            Node n = Node.leaf(t);
            nodes.add(n);
            grads.add(t);
            int slot = table.add(n);
            table.setPending(slot, i % 7);
            table.setUpstream(slot, t);
            assertEquals(slot, table.add(n), "adding again finds the same slot");
        }
        assertEquals(5000, table.size());
        for (int i = 0; i < nodes.size(); i++) {
            int slot = table.find(nodes.get(i));
            assertEquals(i % 7, table.pending(slot), "count of node " + i);
            assertSame(grads.get(i), table.upstream(slot), "gradient of node " + i);
        }
        assertEquals(-1, table.find(Node.leaf(Tensor.zeros(DType.FLOAT32, 1))), "a node never added");
        assertEquals(new HashSet<>(nodes), new HashSet<>(table.nodes()));
    }
}
