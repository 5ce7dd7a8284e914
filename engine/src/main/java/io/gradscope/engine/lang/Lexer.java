package io.gradscope.engine.lang;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * Splits a program into Python tokens: names, numbers, strings, operators, and NEWLINE, INDENT and
 * DEDENT from the indentation. Newlines inside brackets join lines, as in Python.
 */
final class Lexer {
    private static final List<String> OPERATORS = List.of(
            "**=", "//=", ">>=", "<<=", "**", "//", "==", "!=", "<=", ">=", "->", "+=", "-=", "*=", "/=", "@=", "%=",
            "&=", "|=", "^=", ":=", "<<", ">>",
            "+", "-", "*", "/", "@", "%", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "<", ">", "&", "|",
            "^", "~");
    private static final Set<String> OPEN = Set.of("(", "[", "{");
    private static final Set<String> CLOSE = Set.of(")", "]", "}");

    private final String file;
    private final String src;
    private final List<Token> out = new ArrayList<>();
    private int i;
    private int line = 1;
    private int lineStart;
    private final Deque<Token> brackets = new ArrayDeque<>();

    private Lexer(String file, String src) {
        this.file = file;
        this.src = src;
        if (src.startsWith("\uFEFF")) {
            // A UTF-8 byte-order mark: skipped, as Python does; columns count from after it.
            i = 1;
            lineStart = 1;
        }
    }

    static List<Token> tokens(String file, String src) {
        Lexer lx = new Lexer(file, src);
        lx.run();
        return lx.out;
    }

    private Pos pos() {
        return new Pos(line, i - lineStart + 1);
    }

    private ProgramException error(Pos p, String what) {
        return new ProgramException(file, p, what);
    }

    private ProgramException inconsistentTabs(Pos p) {
        return error(p, "this line's indentation mixes tabs and spaces unlike the lines around it, so its block depends on the "
                + "width of a tab; indent with spaces only (or tabs only)");
    }

    private void run() {
        Deque<Integer> indents = new ArrayDeque<>();
        indents.push(0);
        // The same indentation with a tab as 1 column: where the two disagree on the blocks, the program's
        // meaning depends on the tab width, and it is refused (as Python's TabError).
        Deque<Integer> narrow = new ArrayDeque<>();
        narrow.push(0);
        boolean atLineStart = true;
        while (i < src.length()) {
            if (atLineStart && brackets.isEmpty()) {
                int width = 0;
                int alt = 0;
                int j = i;
                while (j < src.length() && (src.charAt(j) == ' ' || src.charAt(j) == '\t' || src.charAt(j) == '\f')) {
                    width = src.charAt(j) == '\t' ? (width / 8 + 1) * 8 : width + 1;
                    alt++;
                    j++;
                }
                boolean blank = j >= src.length() || src.charAt(j) == '\n' || src.charAt(j) == '\r' || src.charAt(j) == '#';
                i = j;
                if (!blank) {
                    Pos p = pos();
                    if (width > indents.peek()) {
                        if (alt <= narrow.peek()) {
                            throw inconsistentTabs(p);
                        }
                        indents.push(width);
                        narrow.push(alt);
                        out.add(new Token(Token.Kind.INDENT, "", p));
                    } else {
                        while (width < indents.peek()) {
                            indents.pop();
                            narrow.pop();
                            out.add(new Token(Token.Kind.DEDENT, "", p));
                        }
                        if (width != indents.peek()) {
                            throw error(p, "this line's indentation matches no enclosing block");
                        }
                        if (alt != narrow.peek()) {
                            throw inconsistentTabs(p);
                        }
                    }
                }
                atLineStart = false;
                continue;
            }
            char c = src.charAt(i);
            if (c == '\n' || c == '\r') {
                if (brackets.isEmpty() && !out.isEmpty() && out.get(out.size() - 1).kind() != Token.Kind.NEWLINE
                        && out.get(out.size() - 1).kind() != Token.Kind.INDENT
                        && out.get(out.size() - 1).kind() != Token.Kind.DEDENT) {
                    out.add(new Token(Token.Kind.NEWLINE, "", pos()));
                }
                i += (c == '\r' && i + 1 < src.length() && src.charAt(i + 1) == '\n') ? 2 : 1;
                line++;
                lineStart = i;
                atLineStart = true;
            } else if (c == ' ' || c == '\t' || c == '\f') {
                i++;
            } else if (c == '#') {
                while (i < src.length() && src.charAt(i) != '\n' && src.charAt(i) != '\r') {
                    i++;
                }
            } else if (c == '\\' && i + 1 < src.length() && (src.charAt(i + 1) == '\n' || src.charAt(i + 1) == '\r')) {
                i++;
                i += (src.charAt(i) == '\r' && i + 1 < src.length() && src.charAt(i + 1) == '\n') ? 2 : 1;
                line++;
                lineStart = i;
            } else if (Character.isLetter(src.codePointAt(i)) || c == '_') {
                Pos p = pos();
                int s = i;
                while (i < src.length() && (Character.isLetterOrDigit(src.codePointAt(i)) || src.charAt(i) == '_')) {
                    i += Character.charCount(src.codePointAt(i));
                }
                out.add(new Token(Token.Kind.NAME, src.substring(s, i), p));
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < src.length() && Character.isDigit(src.charAt(i + 1)))) {
                number();
            } else if (c == '"' || c == '\'') {
                string(c);
            } else {
                operator(c);
            }
        }
        if (!brackets.isEmpty()) {
            Token open = brackets.peek();
            throw error(open.pos(), "'" + open.text() + "' is never closed");
        }
        Pos end = pos();
        if (!out.isEmpty() && out.get(out.size() - 1).kind() != Token.Kind.NEWLINE
                && out.get(out.size() - 1).kind() != Token.Kind.DEDENT) {
            out.add(new Token(Token.Kind.NEWLINE, "", end));
        }
        while (indents.peek() > 0) {
            indents.pop();
            out.add(new Token(Token.Kind.DEDENT, "", end));
        }
        out.add(new Token(Token.Kind.EOF, "", end));
    }

    private void number() {
        Pos p = pos();
        int s = i;
        while (i < src.length() && (Character.isDigit(src.charAt(i)) || src.charAt(i) == '_')) {
            i++;
        }
        if (i < src.length() && src.charAt(i) == '.') {
            i++;
            while (i < src.length() && (Character.isDigit(src.charAt(i)) || src.charAt(i) == '_')) {
                i++;
            }
        }
        if (i < src.length() && (src.charAt(i) == 'e' || src.charAt(i) == 'E')) {
            int save = i;
            i++;
            if (i < src.length() && (src.charAt(i) == '+' || src.charAt(i) == '-')) {
                i++;
            }
            if (i < src.length() && Character.isDigit(src.charAt(i))) {
                while (i < src.length() && Character.isDigit(src.charAt(i))) {
                    i++;
                }
            } else {
                i = save;
            }
        }
        if (i < src.length() && (Character.isLetter(src.charAt(i)) || src.charAt(i) == '_')) {
            throw error(p, "invalid number '" + src.substring(s, Math.min(src.length(), i + 1)) + "'");
        }
        out.add(new Token(Token.Kind.NUMBER, src.substring(s, i).replace("_", ""), p));
    }

    private void string(char quote) {
        Pos p = pos();
        StringBuilder sb = new StringBuilder();
        i++;
        while (true) {
            if (i >= src.length() || src.charAt(i) == '\n' || src.charAt(i) == '\r') {
                throw error(p, "this string is never closed");
            }
            char c = src.charAt(i);
            if (c == quote) {
                i++;
                break;
            }
            if ((c < 32 && c != '\t') || c == 127) {
                throw error(pos(), "unexpected character '" + String.format("\\x%02x", (int) c) + "' in a string");
            }
            if (c == '\\' && i + 1 < src.length()) {
                char n = src.charAt(i + 1);
                sb.append(switch (n) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    default -> n;
                });
                i += 2;
            } else {
                sb.append(c);
                i++;
            }
        }
        out.add(new Token(Token.Kind.STRING, sb.toString(), p));
    }

    private void operator(char c) {
        Pos p = pos();
        for (String op : OPERATORS) {
            if (src.startsWith(op, i)) {
                i += op.length();
                Token t = new Token(Token.Kind.OP, op, p);
                if (OPEN.contains(op)) {
                    brackets.push(t);
                } else if (CLOSE.contains(op)) {
                    if (brackets.isEmpty()) {
                        throw error(p, "unmatched '" + op + "'");
                    }
                    Token open = brackets.pop();
                    String want = switch (open.text()) {
                        case "(" -> ")";
                        case "[" -> "]";
                        default -> "}";
                    };
                    if (!want.equals(op)) {
                        throw error(p, "'" + op + "' does not match '" + open.text() + "' at line " + open.pos().line()
                                + ", column " + open.pos().column());
                    }
                }
                out.add(t);
                return;
            }
        }
        if (c == '\uFFFD') {
            throw error(p, io.gradscope.engine.InputFiles.NOT_TEXT);
        }
        if (c < 32 || c == 127) {
            throw error(p, "unexpected character '" + String.format("\\x%02x", (int) c) + "'");
        }
        // The whole code point (an emoji is two chars), and its number, since some are invisible.
        int cp = src.codePointAt(i);
        if (cp < 128) {
            throw error(p, "unexpected character '" + c + "'");
        }
        String code = String.format("U+%04X", cp);
        if (Character.isISOControl(cp) || Character.isSpaceChar(cp) || Character.getType(cp) == Character.FORMAT
                || (Character.isSurrogate(c) && cp == c)) {
            throw error(p, "unexpected invisible character " + code);
        }
        throw error(p, "unexpected character '" + new String(Character.toChars(cp)) + "' (" + code + ")");
    }
}
