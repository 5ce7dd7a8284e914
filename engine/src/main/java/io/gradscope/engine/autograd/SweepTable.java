package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * A backward sweep's state of each node it visits: how many consumers have yet to send their
 * contribution, and the upstream gradient summed so far. Found by the node's id with open
 * addressing: no entry objects, no boxed counts, no identity hashes (a thousand-node chain made a
 * thousand of each per sweep in the maps this replaces).
 */
final class SweepTable {
    private long[] ids;
    private Node[] nodes;
    private int[] pending;
    private Tensor[] upstream;
    private int size;

    SweepTable(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        ids = new long[cap];
        nodes = new Node[cap];
        pending = new int[cap];
        upstream = new Tensor[cap];
    }

    /** How many nodes the table holds. */
    int size() {
        return size;
    }

    /** The slot of {@code n}, or -1 when it has none. */
    int find(Node n) {
        int mask = nodes.length - 1;
        for (int i = hash(n.id()) & mask; nodes[i] != null; i = (i + 1) & mask) {
            if (nodes[i] == n) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The slot of {@code n}, given one (with no consumers counted and no gradient) when it has none.
     * Giving one may move every other node's slot (the table grows): look them up again after.
     */
    int add(Node n) {
        int found = find(n);
        if (found >= 0) {
            return found;
        }
        if ((size + 1) * 2 > nodes.length) {
            grow();
        }
        int mask = nodes.length - 1;
        int i = hash(n.id()) & mask;
        while (nodes[i] != null) {
            i = (i + 1) & mask;
        }
        nodes[i] = n;
        ids[i] = n.id();
        size++;
        return i;
    }

    int pending(int slot) {
        return pending[slot];
    }

    void setPending(int slot, int count) {
        pending[slot] = count;
    }

    Tensor upstream(int slot) {
        return upstream[slot];
    }

    void setUpstream(int slot, Tensor g) {
        upstream[slot] = g;
    }

    /** The nodes, in no particular order. */
    List<Node> nodes() {
        List<Node> s = new ArrayList<>(size);
        for (Node n : nodes) {
            if (n != null) {
                s.add(n);
            }
        }
        return s;
    }

    private static int hash(long id) {
        long h = id * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void grow() {
        Node[] oldNodes = nodes;
        int[] oldPending = pending;
        Tensor[] oldUpstream = upstream;
        int cap = oldNodes.length * 4;
        ids = new long[cap];
        nodes = new Node[cap];
        pending = new int[cap];
        upstream = new Tensor[cap];
        size = 0;
        for (int j = 0; j < oldNodes.length; j++) {
            if (oldNodes[j] != null) {
                int i = add(oldNodes[j]);
                pending[i] = oldPending[j];
                upstream[i] = oldUpstream[j];
            }
        }
    }
}
