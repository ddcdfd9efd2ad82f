package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileWorkloadTest {

  @TempDir Path dir;

  private PromptFile file(int prompts) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < prompts; i++) {
      lines.add(
          "{\"prompt\": \"prompt " + i + "\"" + (i % 2 == 0 ? ", \"max_tokens\": 10" : "") + "}");
    }
    Path p = dir.resolve("p" + prompts + ".jsonl");
    Files.write(p, lines);
    return PromptFile.load(p);
  }

  private static String text(RequestSpec spec) {
    return ((Prompt.Text) spec.prompt()).text();
  }

  @Test
  void cyclesThroughTheFileInOrder() throws IOException {
    FileWorkload w = new FileWorkload(file(3), null, 1);
    List<String> texts = new ArrayList<>();
    for (int id = 0; id < 7; id++) {
      RequestSpec spec = w.next(id);
      assertThat(spec.id()).isEqualTo(id);
      texts.add(text(spec));
    }
    assertThat(texts)
        .containsExactly(
            "prompt 0", "prompt 1", "prompt 2", "prompt 0", "prompt 1", "prompt 2", "prompt 0");
    assertThat(w.size()).isEqualTo(3);
  }

  @Test
  void maxTokensComeFromTheOutputSpecElseTheRecordElseNone() throws IOException {
    PromptFile f = file(2);
    FileWorkload fromRecords = new FileWorkload(f, null, 1);
    assertThat(fromRecords.next(0).maxTokens()).isEqualTo(OptionalInt.of(10));
    assertThat(fromRecords.next(1).maxTokens()).isEmpty();
    FileWorkload fromSpec = new FileWorkload(f, LengthSpec.parse("uniform:100,200"), 1);
    for (int id = 0; id < 20; id++) {
      assertThat(fromSpec.next(id).maxTokens().getAsInt()).isBetween(100, 200);
    }
  }

  @Test
  void outputDrawsDependOnlyOnSeedAndId() throws IOException {
    PromptFile f = file(5);
    LengthSpec out = LengthSpec.parse("normal:300,100");
    FileWorkload a = new FileWorkload(f, out, 9);
    FileWorkload b = new FileWorkload(f, out, 9);
    List<RequestSpec> forward = new ArrayList<>();
    for (int id = 0; id < 30; id++) {
      forward.add(a.next(id));
    }
    for (int id = 29; id >= 0; id--) {
      assertThat(b.next(id)).isEqualTo(forward.get(id));
    }
  }

  @Test
  void shuffleIsASeededPermutationRepeatedEveryCycle() throws IOException {
    PromptFile f = file(20);
    FileWorkload a = new FileWorkload(f, null, 5, true, TokenEstimator.heuristic());
    FileWorkload again = new FileWorkload(f, null, 5, true, TokenEstimator.heuristic());
    FileWorkload other = new FileWorkload(f, null, 6, true, TokenEstimator.heuristic());
    List<String> first = new ArrayList<>();
    List<String> otherSeed = new ArrayList<>();
    for (int id = 0; id < 20; id++) {
      first.add(text(a.next(id)));
      otherSeed.add(text(other.next(id)));
      assertThat(a.next(id + 20)).extracting(RequestSpec::prompt).isEqualTo(a.next(id).prompt());
      assertThat(again.next(id)).isEqualTo(a.next(id));
    }
    Set<String> all = new HashSet<>(first);
    assertThat(all).hasSize(20); // every prompt once per cycle
    assertThat(first).isNotEqualTo(otherSeed);
    List<String> fileOrder = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      fileOrder.add("prompt " + i);
    }
    assertThat(first).isNotEqualTo(fileOrder);
  }

  @Test
  void promptTokensAreEstimatedOnceAndMarkedEstimates() throws IOException {
    Path p = dir.resolve("chat.jsonl");
    Files.writeString(
        p,
        "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"},"
            + " {\"role\": \"user\", \"content\": \"Hello, world!\"}]}\n"
            + "{\"prompt\": \"one two three\"}\n");
    FileWorkload w = new FileWorkload(PromptFile.load(p), null, 1);
    assertThat(w.next(0).promptTokens()).isEqualTo(3 + 4); // Be brief . / Hello , world !
    assertThat(w.next(1).promptTokens()).isEqualTo(3);
    assertThat(w.next(0).promptTokensExact()).isFalse();

    TokenEstimator exact =
        new TokenEstimator() {
          @Override
          public int count(CharSequence text) {
            return text.length();
          }

          @Override
          public boolean exact() {
            return true;
          }
        };
    FileWorkload exactly = new FileWorkload(PromptFile.load(p), null, 1, false, exact);
    assertThat(exactly.next(1).promptTokens()).isEqualTo("one two three".length());
    assertThat(exactly.next(1).promptTokensExact()).isTrue();
  }
}
