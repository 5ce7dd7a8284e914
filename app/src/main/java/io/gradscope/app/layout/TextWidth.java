package io.gradscope.app.layout;

/**
 * How wide a label is in DejaVu Sans (the font the graph is drawn in), from the font's advance
 * widths, so boxes are sized without a font system (layouts run off the UI thread and in tests).
 * Characters outside printable ASCII count as wide ones.
 */
public final class TextWidth {
    /** The label size in layout units (the graph's font size at zoom 1). */
    public static final double SIZE = 11;

    /** Advance widths of ' ' to '~', in thousandths of an em: DejaVu Sans Book. */
    private static final short[] REGULAR = {
        318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
        636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
        1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
        603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
        500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
        635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838};
    /** The same for DejaVu Sans Bold. */
    private static final short[] BOLD = {
        348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
        696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
        1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
        733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
        500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
        716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838};

    private TextWidth() {
    }

    /** The width of {@code text} at font size {@code size}. */
    public static double of(String text, double size, boolean bold) {
        short[] table = bold ? BOLD : REGULAR;
        long units = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            units += c >= 32 && c < 127 ? table[c - 32] : 1000;
        }
        return units * size / 1000.0;
    }
}
