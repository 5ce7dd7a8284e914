package io.gradscope.engine.sparse;

/**
 * A pattern read one row at a time, without holding its entries: the form an op's dependency rule
 * takes where it is made of windows (a convolution's row is its window over the input channels,
 * found from the output's position when asked for). {@link Pattern} is one that holds them.
 *
 * <pre>{@code
 * Rows r = Pattern.identity(3);
 * int[] buf = new int[r.maxRowCount()];
 * int n = r.row(1, buf);                      // 1, buf[0] == 1
 * }</pre>
 */
public interface Rows {
    int rows();

    int cols();

    /** The most columns one row can have: the length {@link #row}'s buffer needs. */
    int maxRowCount();

    /** Writes row {@code i}'s columns into {@code buf} from index 0 (any order, no repeats); returns how many. */
    int row(int i, int[] buf);

    /** How many columns row {@code i} has. */
    default int rowCount(int i) {
        return row(i, new int[maxRowCount()]);
    }

    /** How many entries in all, counted without listing them. */
    long entries();
}
