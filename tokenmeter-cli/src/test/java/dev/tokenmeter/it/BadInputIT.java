package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.cli.Main;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad-input catalogue (docs/RELIABILITY.md): every command tried with wrong values (wrong
 * types, out of range, files missing, empty or binary, URLs unreachable, a wrong scheme, a server
 * that is not an LLM server). Each must exit 2 with one line naming the problem (and at most
 * picocli's "Try ... --help" hint after it), never a stack trace. {@code {name}} in an argument is
 * replaced by a fixture: {@code {closed}} a URL where nothing listens, {@code {web}} a plain web
 * server, {@code {missing}}, {@code {empty}}, {@code {binary}} files, {@code {dir}} an empty
 * folder, {@code {finished}} a finished run's folder.
 */
class BadInputIT {
  @TempDir static Path tmp;
  private static HttpServer web;
  private static String closed;

  @BeforeAll
  static void fixtures() throws Exception {
    web = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    web.createContext("/", ex -> {
      byte[] page = "<html><body>It works!</body></html>".getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().add("Content-Type", "text/html");
      ex.sendResponseHeaders(ex.getRequestURI().getPath().equals("/") ? 200 : 404, page.length);
      ex.getResponseBody().write(page);
      ex.close();
    });
    web.start();
    closed = "http://127.0.0.1:" + SimFixture.closedPort();
    Files.writeString(tmp.resolve("empty.jsonl"), "");
    byte[] binary = new byte[4096];
    new java.util.Random(1).nextBytes(binary);
    Files.write(tmp.resolve("binary.bin"), binary);
    Files.createDirectories(tmp.resolve("dir"));
    Cli.simulate(tmp.resolve("finished"), new String[] {"--concurrency", "1", "--requests", "2", "--warmup", "0s"});
  }

  @AfterAll
  static void stop() {
    web.stop(0);
  }

  /** One row: a name, the fragment the message must hold, the command line. */
  private static Arguments row(String name, String says, String... args) {
    return Arguments.of(name, says, args);
  }

  static Stream<Arguments> catalogue() {
    return Stream.of(
        // wrong types and ranges
        row("concurrency not a number", "--concurrency", "simulate", "--concurrency", "abc"),
        row("concurrency 0", "concurrency", "simulate", "--concurrency", "0"),
        row("concurrency negative", "concurrency", "simulate", "--concurrency", "-3"),
        row("rate negative", "rate", "simulate", "--rate", "-1"),
        row("rate not a number", "--rate", "simulate", "--rate", "fast"),
        row("duration unit unknown", "not a duration", "simulate", "--concurrency", "1", "--duration", "10x"),
        row("duration empty", "not a duration", "simulate", "--concurrency", "1", "--duration", ""),
        row("duration with a newline", "not a duration", "simulate", "--concurrency", "1", "--duration", "1\ns"),
        row("warm-up negative", "warmup", "simulate", "--concurrency", "1", "--warmup", "-5s"),
        row("requests 0", "requests", "simulate", "--concurrency", "1", "--requests", "0"),
        row("input tokens 0", "at least 1", "simulate", "--concurrency", "1", "--input-tokens", "0"),
        row("output length spec malformed", "examples", "simulate", "--concurrency", "1", "--output-tokens", "normal:abc"),
        row("burstiness without gamma", "burstiness", "simulate", "--rate", "2", "--burstiness", "0.5"),
        row("arrival unknown", "--arrival", "simulate", "--rate", "2", "--arrival", "zipf"),
        row("slo metric unknown", "slo", "simulate", "--concurrency", "1", "--slo", "speed.p99<=1s"),
        row("slo empty", "slo", "simulate", "--concurrency", "1", "--slo", ""),
        row("gpus 0", "gpus", "simulate", "--concurrency", "1", "--gpus", "0"),
        row("gpu unknown", "gpu", "simulate", "--concurrency", "1", "--gpu", "Z9000"),
        row("model unknown", "model", "simulate", "--concurrency", "1", "--model", "no-such-model"),
        row("price negative", "price", "simulate", "--concurrency", "1", "--price-in", "-1"),
        row("repeat 0", "repeat", "simulate", "--concurrency", "1", "--repeat", "0"),
        row("trace missing", "no such file", "simulate", "--trace", "{missing}"),
        row("trace empty", "the trace is empty", "simulate", "--trace", "{empty}"),
        row("trace binary", "not a trace format", "simulate", "--trace", "{binary}"),
        row("trace format unknown", "not a trace format", "simulate", "--trace", "{empty}", "--trace-format", "sharegpt"),
        row("trace with a rate", "--trace is the schedule", "simulate", "--trace", "{empty}", "--rate", "2"),
        row("trace speed 0", "--trace-speed", "simulate", "--trace", "tokenmeter-cli/src/test/resources/dev/tokenmeter/workload/traces/mooncake.jsonl", "--trace-speed", "0"),
        row("unknown option", "Unknown option", "simulate", "--concurrency", "1", "--nope"),
        row("unknown command", "Unmatched argument", "nope"),
        // target
        row("url wrong scheme", "http or https", "bench", "--url", "ftp://127.0.0.1:21", "--concurrency", "1"),
        row("url not a url", "url", "bench", "--url", "not a url", "--concurrency", "1"),
        row("url without a scheme", "has no scheme: give --url http://127.0.0.1:8000", "bench", "--url", "127.0.0.1:8000",
            "--concurrency", "1"),
        row("url host that does not resolve", "cannot find the host no-such-host.invalid (the name does not resolve)",
            "bench", "--url", "http://no-such-host.invalid:8000", "--concurrency", "1", "--requests", "1"),
        row("url unreachable", "127.0.0.1", "bench", "--url", "{closed}", "--concurrency", "1", "--requests", "1"),
        row("not an LLM server", "not an OpenAI-compatible API", "bench", "--url", "{web}", "--concurrency", "1", "--requests", "1"),
        row("variant without a name", "--variant", "bench", "--url", "{closed}", "--concurrency", "2", "--variant", ":model=x"),
        row("variant key unknown", "--variant", "bench", "--url", "{closed}", "--concurrency", "2", "--variant",
            "a:colour=red"),
        row("extra body not JSON", "extra-body", "bench", "--url", "{closed}", "--concurrency", "1", "--extra-body", "{nope"),
        row("event loops 0", "--event-loops '0': give auto or a whole number from 1 to 64", "bench", "--url", "{closed}",
            "--concurrency", "1", "--event-loops", "0"),
        row("event loops not a number", "--event-loops", "bench", "--url", "{closed}", "--concurrency", "1",
            "--event-loops", "many"),
        row("header without a colon", "header", "bench", "--url", "{closed}", "--concurrency", "1", "--header", "X-Nope"),
        row("ca cert missing", "{missing}", "bench", "--url", "https://127.0.0.1:1", "--concurrency", "1", "--ca-cert",
            "{missing}"),
        // files
        row("prompts missing", "{missing}", "simulate", "--concurrency", "1", "--prompts", "{missing}"),
        row("prompts empty", "empty.jsonl", "simulate", "--concurrency", "1", "--prompts", "{empty}"),
        row("prompts binary", "binary.bin", "simulate", "--concurrency", "1", "--prompts", "{binary}"),
        row("tokens file missing", "{missing}", "tokens", "-t", "cl100k_base", "-f", "{missing}"),
        row("tokens jsonl binary", "binary.bin", "tokens", "-t", "cl100k_base", "--input-jsonl", "{binary}"),
        row("tokenizer unknown", "tokenizer", "tokens", "-t", "no_such_encoding", "-f", "{binary}"),
        row("model file missing", "{missing}", "simulate", "--concurrency", "1", "--model-file", "{missing}"),
        row("gpu file binary", "binary.bin", "simulate", "--concurrency", "1", "--gpu-file", "{binary}"),
        // results folders
        row("report folder missing", "summary.json", "report", "{missing}"),
        row("report folder empty", "summary.json", "report", "{dir}"),
        row("recover a finished run", "nothing to recover", "report", "--recover", "{finished}"),
        row("recover an empty folder", "requests.jsonl", "report", "--recover", "{dir}"),
        row("recover to another page", "leave out --out", "report", "--recover", "{finished}", "--out", "{dir}/r.html"),
        row("compare one folder", "compare needs two results folders (or one and --production LEDGER)", "compare", "{finished}"),
        row("compare missing folders", "{missing}", "compare", "{finished}", "{missing}"),
        row("merge missing folders", "{missing}", "merge", "--out", "{dir}/m", "{finished}", "{missing}"),
        // the simulator's server
        row("port out of range", "port", "sim", "serve", "--port", "99999"),
        row("faults malformed", "faults", "sim", "serve", "--port", "0", "--faults", "http_429=lots"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("catalogue")
  void badInputIsOneLineAndExit2(String name, String says, String[] args) {
    String[] line = Arrays.stream(args).map(BadInputIT::fill).toArray(String[]::new);
    Cli.Result r = Cli.run(line);
    assertThat(r.exitCode()).as(r.both()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).as(r.both()).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("bug in tokenmeter");
    List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
    List<String> said = lines.stream().filter(l -> l.startsWith("tokenmeter:")).toList();
    assertThat(said).as(r.both()).hasSize(1);
    assertThat(lines).as(r.both()).hasSizeLessThanOrEqualTo(2);
    assertThat(said.get(0)).as(r.both()).containsIgnoringCase(fill(says));
  }

  private static String fill(String arg) {
    return arg.replace("{closed}", closed)
        .replace("{web}", "http://127.0.0.1:" + web.getAddress().getPort())
        .replace("{missing}", tmp.resolve("missing.jsonl").toString())
        .replace("{empty}", tmp.resolve("empty.jsonl").toString())
        .replace("{binary}", tmp.resolve("binary.bin").toString())
        .replace("{dir}", tmp.resolve("dir").toString())
        .replace("{finished}", tmp.resolve("finished").toString());
  }
}
