package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The lines of a text in an edited copy of it: checked against edits whose effect on each line is known. */
class LineMapTest {
    @Test
    void linesMoveWithWhatWasAddedOrRemovedAboveAndAChangedLineHasNone() {
        String ran = "x = input(3)\nW = param(3)\ny = x * W\nloss = sum(y)\n";
        LineMap added = LineMap.between(ran, "# note\n\n" + ran);
        assertEquals(3, added.map(1));
        assertEquals(6, added.map(4));
        LineMap changed = LineMap.between(ran, ran.replace("y = x * W", "y = x * W + 1"));
        assertEquals(2, changed.map(2));
        assertEquals(0, changed.map(3), "the changed line");
        assertEquals(4, changed.map(4));
        LineMap removed = LineMap.between(ran, ran.replace("W = param(3)\n", ""));
        assertEquals(0, removed.map(2));
        assertEquals(2, removed.map(3));
        assertEquals(0, removed.map(0));
        assertEquals(0, removed.map(99));
    }

    /**
     * Random edits of random texts (a few distinct lines, so that lines repeat): every line the edits
     * left alone maps where the edits put it, when it is unique in both texts; and no line ever maps to a
     * line of other text, nor out of order.
     */
    @Test
    void aCommentOrTrailingSpacesAddedToAStatementKeepItsLineAndACodeChangeDoesNot() {
        String ran = "x = input(3)\nW = param(3, init=\"a#b\")\ny = x * W\nloss = sum(y)\n";
        LineMap commented = LineMap.between(ran, ran.replace("y = x * W", "y = x * W   # the product").replace("loss = sum(y)", "loss = sum(y)  "));
        assertEquals(3, commented.map(3), "a comment added at the end of the line");
        assertEquals(4, commented.map(4), "trailing spaces added");
        LineMap inString = LineMap.between(ran, ran.replace("a#b", "a#c"));
        assertEquals(0, inString.map(2), "a # inside a string is code: changed");
        LineMap changed = LineMap.between(ran, ran.replace("y = x * W", "y = x * W  # the product\n").replace("x * W", "x + W"));
        assertEquals(0, changed.map(3), "the code changed");
    }

    @Test
    void randomEditsMapTheLinesTheyLeftAloneAndNeverToOtherText() {
        Random r = new Random(7);
        for (int trial = 0; trial < 2000; trial++) {
            List<String> a = new ArrayList<>();
            int n = r.nextInt(30);
            for (int i = 0; i < n; i++) {
                a.add(r.nextInt(4) == 0 ? "" : "v" + r.nextInt(n + 5) + " = f(" + i % 3 + ")");
            }
            // Where each original line is after the edits (-1 for changed or removed ones).
            List<String> b = new ArrayList<>();
            List<Integer> origin = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int what = r.nextInt(10);
                if (what == 0) {
                    continue; // removed
                }
                if (what == 1) {
                    b.add("changed " + r.nextInt(3));
                    origin.add(-1);
                    continue;
                }
                if (what == 2) {
                    b.add("added " + r.nextInt(3));
                    origin.add(-1);
                }
                b.add(a.get(i));
                origin.add(i);
            }
            String before = String.join("\n", a);
            String after = String.join("\n", b);
            LineMap map = LineMap.between(before, after);
            String[] la = before.split("\n", -1);
            String[] lb = after.split("\n", -1);
            int last = 0;
            for (int i = 1; i <= la.length; i++) {
                int j = map.map(i);
                if (j > 0) {
                    assertEquals(la[i - 1], lb[j - 1], "a line maps only to the same text");
                    assertTrue(j > last, "in order");
                    last = j;
                }
            }
            for (int k = 0; k < origin.size(); k++) {
                int i = origin.get(k);
                if (i >= 0 && count(a, a.get(i)) == 1 && count(b, a.get(i)) == 1) {
                    assertEquals(k + 1, map.map(i + 1), "line " + (i + 1) + " of " + before + "\n---\n" + after);
                }
            }
        }
    }

    private static int count(List<String> lines, String line) {
        return (int) lines.stream().filter(line::equals).count();
    }
}
