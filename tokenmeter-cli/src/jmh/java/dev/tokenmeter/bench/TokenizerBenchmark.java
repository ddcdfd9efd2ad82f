package dev.tokenmeter.bench;

import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.workload.PromptSynthesizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Tokenizer speed on one core: microseconds to count the tokens of a text. {@code prose} is 64 KiB
 * of the synthesizer's English-like text, {@code code} 64 KiB of tokenmeter's own Java sources,
 * {@code output256} the first 256 o200k tokens of the prose (what the output counter handles per
 * request). Setup prints each text's bytes and tokens, from which tokens/s and MB/s follow.
 * Run from the repository root (the code sample and the Llama 3 file are read from it):
 *
 * <pre>
 * scripts/fetch-test-tokenizers.sh
 * ./mvnw -q -o -Pjmh package -DskipTests
 * java --enable-native-access=ALL-UNNAMED -jar target/tokenmeter-jmh.jar TokenizerBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TokenizerBenchmark {
  static final int BYTES = 64 * 1024;

  @Param({"o200k_base", "llama3"})
  String tokenizer;

  @Param({"prose", "code", "output256"})
  String text;

  private Tokenizer t;
  private String input;

  @Setup
  public void setup() throws IOException {
    t =
        tokenizer.equals("llama3")
            ? Tokenizer.huggingFace(
                Path.of(System.getProperty("llama3", "target/test-tokenizers/llama3/tokenizer.json")), "llama3")
            : Tokenizer.openAi(tokenizer);
    input =
        switch (text) {
          case "prose" -> prose(BYTES);
          case "code" -> code(BYTES);
          default -> first256(prose(BYTES));
        };
    System.out.printf(
        "%n%s %s: %d bytes, %d tokens%n",
        tokenizer, text, input.getBytes(StandardCharsets.UTF_8).length, t.count(input));
  }

  static String prose(int bytes) {
    return PromptSynthesizer.standard().text(bytes / 5, new SplittableRandom(1)).text().substring(0, bytes);
  }

  static String first256(String prose) {
    Tokenizer o200k = Tokenizer.openAi("o200k_base");
    int[] ids = o200k.encode(prose);
    return o200k.decode(java.util.Arrays.copyOf(ids, 256));
  }

  static String code(int bytes) {
    StringBuilder sb = new StringBuilder();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        sb.append(Files.readString(p));
        if (sb.length() >= bytes) {
          break;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("run from the repository root", e);
    }
    return sb.substring(0, Math.min(bytes, sb.length()));
  }

  @Benchmark
  public int count() {
    return t.count(input);
  }
}
