package io.gradscope.engine.run;

import io.gradscope.engine.lang.Ast;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * For each statement of a program (in the order they run, blocks flattened, as the interpreter
 * counts them), the names it is the last to read: after it, the program no longer holds their
 * values (Note [Program holds] in the interpreter). A name nothing reads is let go of after its own
 * statement.
 */
final class LastReaders {
    private LastReaders() {
    }

    static List<List<String>> of(List<Ast.Stmt> program) {
        List<List<String>> readers = new ArrayList<>();
        Map<String, Integer> last = new HashMap<>();
        flatten(program, readers, last);
        List<List<String>> byStatement = new ArrayList<>();
        for (int i = 0; i < readers.size(); i++) {
            byStatement.add(new ArrayList<>());
        }
        last.forEach((name, at) -> byStatement.get(at).add(name));
        return byStatement;
    }

    private static void flatten(List<Ast.Stmt> stmts, List<List<String>> readers, Map<String, Integer> last) {
        for (Ast.Stmt s : stmts) {
            if (s instanceof Ast.With w) {
                flatten(w.body(), readers, last);
                continue;
            }
            int at = readers.size();
            List<String> names = new ArrayList<>();
            Ast.Expr e = s instanceof Ast.Assign a ? a.value()
                    : s instanceof Ast.Unpack u ? u.value() : ((Ast.ExprStmt) s).value();
            names(e, names);
            readers.add(names);
            for (String n : names) {
                last.put(n, at);
            }
            if (s instanceof Ast.Assign a) {
                last.putIfAbsent(a.name(), at);
            } else if (s instanceof Ast.Unpack u) {
                u.names().forEach(n -> last.putIfAbsent(n.id(), at));
            }
        }
    }

    private static void names(Ast.Expr e, List<String> out) {
        if (e instanceof Ast.Name n) {
            out.add(n.id());
        } else if (e instanceof Ast.Tuple t) {
            t.items().forEach(x -> names(x, out));
        } else if (e instanceof Ast.Unary u) {
            names(u.operand(), out);
        } else if (e instanceof Ast.Binary b) {
            names(b.left(), out);
            names(b.right(), out);
        } else if (e instanceof Ast.Call c) {
            c.args().forEach(x -> names(x, out));
            c.keywords().forEach(k -> names(k.value(), out));
        }
    }
}
