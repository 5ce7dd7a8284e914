package io.gradscope.app.export;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Collection;
import java.util.Locale;
import java.util.function.Function;

/**
 * The graph as SVG, drawn from the same layout and styles as the view: group boxes, routed edges
 * with arrow heads (lit ones orange), nodes coloured by kind with the sweep's state as outline.
 */
public final class SvgExport {
    private SvgExport() {
    }

    /** The value a style gives {@code key} (the last one, as in CSS), or {@code dflt}. */
    private static String attr(String style, String key, String dflt) {
        String value = dflt;
        for (String part : style.split(";")) {
            String[] kv = part.split(":", 2);
            if (kv.length == 2 && kv[0].trim().equals(key)) {
                value = kv[1].trim().replace("px", "");
            }
        }
        return value;
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** The SVG document; {@code styleOf} gives each display node's current style (kind + state). */
    public static String svg(TraceGraph graph, GraphLayout.Result layout, Function<String, String> styleOf,
                             Collection<TraceGraph.Edge> active) {
        double pad = 20;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                + "viewBox=\"%.1f %.1f %.1f %.1f\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\">%n",
                layout.width() + 2 * pad, layout.height() + 2 * pad, -pad, -pad, layout.width() + 2 * pad, layout.height() + 2 * pad));
        sb.append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                + "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#9aa3b5\"/></marker>"
                + "<marker id=\"arrow-active\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                + "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#e0582b\"/></marker></defs>\n");
        sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfd\"/>%n",
                -pad, -pad, layout.width() + 2 * pad, layout.height() + 2 * pad));
        for (GraphLayout.GroupBox g : layout.groups()) {
            GraphLayout.Box b = g.box();
            sb.append(String.format(Locale.ROOT, "<g class=\"group\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    + "fill=\"none\" stroke=\"#9aa3b5\" stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\" "
                    + "fill=\"#4b5468\">%s</text></g>%n", b.x(), b.y(), b.w(), b.h(), b.x() + 6, b.y() + 14, esc(g.name())));
        }
        for (GraphLayout.DisplayEdge e : layout.edges()) {
            boolean lit = active.contains(e.edge());
            StringBuilder pts = new StringBuilder();
            for (double[] p : e.points()) {
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", p[0], p[1]));
            }
            sb.append(String.format(Locale.ROOT, "<polyline class=\"edge\" points=\"%s\" fill=\"none\" stroke=\"%s\" "
                    + "stroke-width=\"%s\" marker-end=\"url(#%s)\"/>%n", pts.toString().trim(), lit ? "#e0582b" : "#9aa3b5",
                    lit ? "3" : "1.2", lit ? "arrow-active" : "arrow"));
        }
        for (GraphLayout.DisplayNode d : layout.nodes().values()) {
            GraphLayout.Box b = d.box();
            String style = styleOf.apply(d.key());
            style = style == null ? "" : style;
            String label = d.vertex() >= 0 ? GraphLayout.label(graph.vertex(d.vertex())) : GraphLayout.groupLabel(d.group(), d.members());
            sb.append(String.format(Locale.ROOT, "<g class=\"node\" id=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    + "fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                    + "dominant-baseline=\"central\" fill=\"%s\">%s</text></g>%n", esc(d.key()), b.x(), b.y(), b.w(), b.h(),
                    attr(style, "fill-color", "#ffffff"), attr(style, "stroke-color", "#8a93a6"), attr(style, "stroke-width", "1.2"),
                    b.cx(), b.cy(), attr(style, "text-color", "#1d2433"), esc(label)));
        }
        return sb.append("</svg>\n").toString();
    }
}
