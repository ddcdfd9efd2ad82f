package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Trace prompts: one fixed text per hash id, exact lengths, shared ids sent as shared bytes and tokens. */
class TraceWorkloadTest {
  private static final Tokenizer O200K = Tokenizer.openAi("o200k_base");

  private static Trace.Record rec(int in, long... ids) {
    return new Trace.Record(0, in, 7, ids, null, 0, 1);
  }

  private static String text(RequestSpec s) {
    return ((Prompt.Text) s.prompt()).text();
  }

  @Test
  void promptsAreExactAndSharedIdsShareBytesAndTokens() {
    int block = 64;
    List<Trace.Record> rs = List.of(
        rec(200, 1, 2, 3, 4), // 3 whole blocks and 8 tokens of block 4
        rec(150, 1, 2, 9), // shares blocks 1 and 2
        rec(300, 1, 2, 3), // shares 1, 2, 3, then 108 tokens of its own
        rec(64 * 3, 5, 6, 7), // exactly three whole blocks
        rec(5)); // no blocks at all
    TraceWorkload w = new TraceWorkload(rs, block, 42, new PromptSynthesizer(TokenEstimator.exact(O200K)));
    for (int i = 0; i < rs.size(); i++) {
      RequestSpec s = w.next(i);
      assertThat(O200K.count(text(s))).as("record " + i).isEqualTo(rs.get(i).inputTokens());
      assertThat(s.promptTokens()).isEqualTo(rs.get(i).inputTokens());
      assertThat(s.promptTokensExact()).isTrue();
      assertThat(s.maxTokens()).hasValue(7);
    }
    String b1b2 = w.block(1).text() + w.block(2).text();
    assertThat(text(w.next(0))).startsWith(b1b2 + w.block(3).text());
    assertThat(text(w.next(1))).startsWith(b1b2);
    assertThat(text(w.next(2))).startsWith(b1b2 + w.block(3).text());
    // Byte-shared prefixes are token-shared: the ids of the common blocks are equal.
    int[] a = O200K.encode(text(w.next(0)));
    int[] b = O200K.encode(text(w.next(1)));
    int shared = O200K.encode(b1b2).length;
    assertThat(shared).isBetween(2 * block - 2, 2 * block + 2);
    for (int i = 0; i < shared; i++) {
      assertThat(a[i]).as("token " + i).isEqualTo(b[i]);
    }
    assertThat(a[shared + 1]).isNotEqualTo(b[shared + 1]); // block 3 versus block 9
  }

  @Test
  void theSameIdIsTheSameTextAcrossInstancesAndAnotherSeedChangesIt() {
    PromptSynthesizer synth = new PromptSynthesizer(TokenEstimator.exact(O200K));
    TraceWorkload a = new TraceWorkload(List.of(rec(10)), 512, 42, synth);
    TraceWorkload b = new TraceWorkload(List.of(rec(10)), 512, 42, synth);
    TraceWorkload c = new TraceWorkload(List.of(rec(10)), 512, 43, synth);
    assertThat(a.block(77).text()).isEqualTo(b.block(77).text()).isNotEqualTo(c.block(77).text()).isNotEqualTo(a.block(78).text());
    assertThat(O200K.count(a.block(77).text())).isBetween(511, 513);
    assertThat(text(a.next(0))).isEqualTo(text(b.next(0)));
  }

  @Test
  void heuristicSizedPromptsReachTheLengthWithinAWord() {
    TraceWorkload w = new TraceWorkload(List.of(rec(1000, 1, 2), rec(700, 1)), 512, 1, PromptSynthesizer.standard());
    for (int i = 0; i < 2; i++) {
      RequestSpec s = w.next(i);
      assertThat(s.promptTokensExact()).isFalse();
      assertThat(s.promptTokens()).isBetween(List.of(1000, 700).get(i), List.of(1000, 700).get(i) + 3);
    }
    assertThat(text(w.next(1))).startsWith(w.block(1).text().substring(0, 200));
  }

  @Test
  void aheadRequestsGiveTheSameSpecsAsTheSource() {
    List<Trace.Record> rs = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      rs.add(rec(20 + i, i % 3));
    }
    TraceWorkload w = new TraceWorkload(rs, 16, 42, PromptSynthesizer.standard());
    AheadRequests ahead = new AheadRequests(w, rs.size(), 8);
    for (int i = 0; i < rs.size(); i++) {
      assertThat(text(ahead.next(i))).isEqualTo(text(w.next(i)));
    }
  }

  @Test
  void longPromptsOfMooncakeSizeAreExactAndShareTheirCommonBlocks() {
    List<Trace.Record> rs = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      int in = 3000 + 517 * i; // partial last blocks of every size
      int blocks = (in + 511) / 512;
      long[] ids = new long[blocks];
      for (int b = 0; b < blocks; b++) {
        ids[b] = b < 3 ? b : 1000L * i + b; // the first 3 blocks are everyone's
      }
      rs.add(new Trace.Record(0, in, 7, ids, null, 0, i + 1));
    }
    TraceWorkload w = new TraceWorkload(rs, 512, 42, new PromptSynthesizer(TokenEstimator.exact(O200K)));
    String shared = w.block(0).text() + w.block(1).text() + w.block(2).text();
    for (int i = 0; i < rs.size(); i++) {
      String t = text(w.next(i));
      assertThat(O200K.count(t)).as("record " + i).isEqualTo(rs.get(i).inputTokens());
      assertThat(t).startsWith(shared);
    }
  }

  @Test
  void warmUpPromptsHaveTheirLengthsCycleAndShareNothingWithTheTrace() {
    PromptSynthesizer synth = new PromptSynthesizer(TokenEstimator.exact(O200K));
    List<Trace.Record> rs = List.of(rec(200, 1, 2, 3, 4), rec(100), rec(100, 1));
    TraceWorkload trace = new TraceWorkload(rs, 64, 42, synth);
    var warm = TraceWorkload.warmup(3, 100, 16, 42, synth);
    for (long id = 0; id < 7; id++) {
      RequestSpec s = warm.next(id);
      assertThat(s.id()).isEqualTo(id);
      assertThat(O200K.count(text(s))).isEqualTo(100);
      assertThat(s.promptTokens()).isEqualTo(100);
      assertThat(s.maxTokens()).hasValue(16);
      assertThat(text(s)).isEqualTo(text(warm.next(id % 3))); // three prompts, cycled
      for (int r = 0; r < rs.size(); r++) {
        // Not even the first 8 characters in common: no prompt block of the trace is warmed.
        assertThat(text(s).substring(0, 8)).as("warm-up %d, record %d", id, r)
            .isNotEqualTo(text(trace.next(r)).substring(0, 8));
        assertThat(text(trace.next(r))).doesNotContain(text(s).substring(0, 40));
      }
    }
    assertThat(text(warm.next(0))).isNotEqualTo(text(warm.next(1)));
  }
}
