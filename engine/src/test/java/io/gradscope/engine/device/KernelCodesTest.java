package io.gradscope.engine.device;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CUDA kernels take an op kind as the Java enum's ordinal, so the C enums of gradscope.cu must
 * list the same kinds in the same order. Checked here on every run, GPU or not: a kind inserted on
 * one side only would otherwise make every later GPU op compute another function.
 */
class KernelCodesTest {
    /** The names of the C enum whose members start with {@code prefix}, without it, in order. */
    static List<String> cEnum(String source, String prefix) {
        Matcher m = Pattern.compile("enum\\s*\\w*\\s*\\{([^}]*)}").matcher(source);
        while (m.find()) {
            List<String> names = Arrays.stream(m.group(1).split(","))
                    .map(s -> s.replaceAll("//.*|/\\*.*?\\*/", "").trim())
                    .filter(s -> !s.isEmpty())
                    .map(s -> s.replaceAll("\\s*=.*", ""))
                    .toList();
            if (!names.isEmpty() && names.get(0).startsWith(prefix)) {
                return names.stream().map(s -> s.startsWith(prefix) ? s.substring(prefix.length()) : "?" + s).toList();
            }
        }
        return List.of();
    }

    private static List<String> javaNames(Enum<?>[] values) {
        return Arrays.stream(values).map(Enum::name).toList();
    }

    private static void assertSameKinds(Enum<?>[] java, String prefix) throws IOException {
        List<String> c = cEnum(Files.readString(KernelPtxTest.CU), prefix);
        assertFalse(c.isEmpty(), "no enum of " + prefix + " kinds in " + KernelPtxTest.CU);
        assertEquals(javaNames(java), c, java[0].getDeclaringClass().getSimpleName() + " and the " + prefix
                + " enum of gradscope.cu differ");
    }

    @Test
    void unaryKindsAgreeNameByName() throws IOException {
        assertSameKinds(UnaryKind.values(), "U_");
    }

    @Test
    void binaryKindsAgreeNameByName() throws IOException {
        assertSameKinds(BinaryKind.values(), "B_");
    }

    @Test
    void aReorderedEnumIsCaught() {
        String swapped = "enum { U_EXP, U_NEG };";
        assertEquals(List.of("EXP", "NEG"), cEnum(swapped, "U_"));
        assertFalse(javaNames(UnaryKind.values()).subList(0, 2).equals(cEnum(swapped, "U_")));
    }
}
