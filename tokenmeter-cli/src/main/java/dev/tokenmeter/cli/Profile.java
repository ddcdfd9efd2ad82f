package dev.tokenmeter.cli;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code --profile}: the shape of the traffic {@code bench} and {@code simulate} send. One value per
 * workload family of issue 36; each names the flags that only it takes.
 */
enum Profile {
  /** Chat requests; with {@code --turns}, conversations (the default). */
  CHAT,
  /** Agent loops: sessions of tool steps ({@code --turns}, {@code --tool-time}, {@code --tool-result-tokens}). */
  AGENT,
  /** Code completion: typing bursts of fill-in-the-middle requests ({@code --burst}, {@code --keystroke-time}, {@code --cancel-after}). */
  COMPLETION;

  /** The lower-case name, as written on the command line. */
  String flagValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code value} parsed, case-insensitively; a usage error naming the values otherwise. */
  static Profile parse(String value) {
    for (Profile p : values()) {
      if (p.flagValue().equalsIgnoreCase(value.strip())) {
        return p;
      }
    }
    throw new UsageException("--profile '" + value + "': use one of "
        + Arrays.stream(values()).map(Profile::flagValue).collect(Collectors.joining(", ")));
  }
}
