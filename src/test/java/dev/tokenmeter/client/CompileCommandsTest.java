package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The launcher's JIT flags (scripts/jit-flags.sh) name methods by string; HotSpot ignores a
 * command for a method that does not exist (quietly, with {@code quiet}), so a rename would drop
 * the flag without a word. This test names it.
 */
class CompileCommandsTest {
  private static final Pattern COMMAND =
      Pattern.compile("-XX:CompileCommand=dontinline,([\\w.$]+)::(\\w+)");

  @Test
  void everyMethodTheLauncherNamesExists() throws IOException, ClassNotFoundException {
    String flags = Files.readString(Path.of("scripts/jit-flags.sh"));
    assertThat(flags).contains("TM_JIT_FLAGS=\"-XX:CompileCommand=quiet"); // quiet first
    Matcher m = COMMAND.matcher(flags);
    int commands = 0;
    while (m.find()) {
      commands++;
      String method = m.group(2);
      Method[] declared = Class.forName(m.group(1)).getDeclaredMethods();
      assertThat(Arrays.stream(declared).map(Method::getName))
          .as("%s::%s in scripts/jit-flags.sh", m.group(1), method)
          .contains(method);
    }
    assertThat(commands).isGreaterThan(0);
  }
}
