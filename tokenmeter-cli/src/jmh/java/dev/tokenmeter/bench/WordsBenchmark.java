package dev.tokenmeter.bench;

import dev.tokenmeter.core.metrics.Words;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The word count of one answer, as the counting thread runs it at every request's end: 256 English
 * words (about 1,500 characters) and the same length of Japanese. Scores are nanoseconds per answer.
 *
 * <pre>
 * ./mvnw -q -o -Pjmh package -DskipTests
 * java -jar target/tokenmeter-jmh.jar WordsBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WordsBenchmark {
  private static final String[] ENGLISH = {
    "The", "capital", "of", "France", "is", "Paris,", "and", "it", "has", "been", "the", "seat",
    "of", "government", "since", "987.", "Don't", "forget", "its", "3.5", "million", "people."
  };
  private String english;
  private String japanese;

  @Setup
  public void setUp() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 256; i++) {
      b.append(' ').append(ENGLISH[i % ENGLISH.length]);
    }
    english = b.toString();
    japanese = "日本語のテキストです。".repeat(english.length() / 11);
  }

  @Benchmark
  public long english() {
    return Words.count(english);
  }

  @Benchmark
  public long japanese() {
    return Words.count(japanese);
  }
}
