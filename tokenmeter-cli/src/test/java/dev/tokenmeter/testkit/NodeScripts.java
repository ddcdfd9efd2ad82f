package dev.tokenmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.SimServer;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The official SDKs' check scripts ({@code src/test/sdk/*.mjs}, installed into {@link #DIR} by
 * {@code scripts/install-sdk-check.sh}) run with Node.js against a simulator.
 */
public final class NodeScripts {
  /** Where the install script puts the SDKs and the check scripts. */
  public static final Path DIR = Path.of("tokenmeter-cli", "target", "sdk-check");

  private static final ObjectMapper JSON = new ObjectMapper();

  private NodeScripts() {}

  /**
   * Installs the pinned SDKs (a second run with them present does nothing); returns its output.
   * Without Node.js and npm on the PATH the calling tests are skipped, or fail when {@code
   * TOKENMETER_REQUIRE_NODE=1} (as {@code .ci/run} sets it).
   */
  public static String install() throws IOException, InterruptedException {
    if (!onPath("node") || !onPath("npm")) {
      String problem = "Node.js and npm are not on PATH: the SDK tests need them (apt-get install nodejs npm)";
      assertThat(System.getenv("TOKENMETER_REQUIRE_NODE")).as(problem).isNotEqualTo("1");
      Assumptions.abort(problem);
    }
    return run(List.of("bash", "scripts/install-sdk-check.sh", DIR.toString()));
  }

  private static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    return path != null
        && Arrays.stream(path.split(File.pathSeparator)).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
  }

  /** Runs {@code script} against {@code server} and returns the last JSON object it printed. */
  public static JsonNode check(String script, SimServer server, String model, String mode)
      throws IOException, InterruptedException {
    return check(script, server.baseUrl(), model, mode);
  }

  /** Runs {@code script} against the server at {@code baseUrl} (a proxy, say); the last JSON object it printed. */
  public static JsonNode check(String script, String baseUrl, String model, String mode)
      throws IOException, InterruptedException {
    String out = run(List.of("node", DIR.resolve(script).toString(), baseUrl, model, mode));
    String last = out.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("");
    assertThat(last).as("no JSON from " + script + ":\n" + out).isNotEmpty();
    return JSON.readTree(last);
  }

  /** Runs {@code cmd}, asserting it ends within 120 s with status 0; returns its output. */
  public static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] bytes = p.getInputStream().readAllBytes();
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    String out = new String(bytes, StandardCharsets.UTF_8);
    assertThat(done).as(out).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
    return out;
  }
}
