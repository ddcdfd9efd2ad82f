package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UsageChunkFilterTest {
  private static final String TOKEN =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the usage of words\"},\"finish_reason\":null}]}";
  private static final String FINISH =
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}";
  private static final String USAGE =
      "data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}";
  private static final String DONE = "data: [DONE]";

  private static String stream(String eol, boolean withUsage) {
    String sep = eol + eol;
    return TOKEN + sep + FINISH + sep + (withUsage ? USAGE + sep : "") + DONE + sep;
  }

  /** Feeds {@code input} split at {@code cuts} and returns what was forwarded, with its pieces. */
  private static String run(String input, int[] cuts, List<Integer> piecesPerRead) {
    byte[] b = input.getBytes(StandardCharsets.UTF_8);
    UsageChunkFilter f = new UsageChunkFilter();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : b.length;
      ByteBuf in = Unpooled.wrappedBuffer(b, from, to - from);
      int[] pieces = {0};
      f.forward(in, buf -> {
        pieces[0]++;
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        out.writeBytes(bytes);
        buf.release();
      });
      assertThat(in.refCnt()).isEqualTo(1); // slices were retained, the read itself is the caller's
      in.release();
      piecesPerRead.add(pieces[0]);
      from = to;
    }
    f.finish(buf -> {
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      out.writeBytes(bytes);
      buf.release();
    });
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\n", "\r\n", "\r"})
  void theUsageOnlyChunkIsRemovedAndEverythingElseKeptWhateverTheSplits(String eol) {
    String input = stream(eol, true);
    String expected = stream(eol, false);
    SplittableRandom random = new SplittableRandom(eol.hashCode());
    for (int trial = 0; trial < 500; trial++) {
      int n = random.nextInt(6);
      int[] cuts = random.ints(n, 0, input.length() + 1).sorted().toArray();
      assertThat(run(input, cuts, new ArrayList<>())).as("cuts %s", java.util.Arrays.toString(cuts)).isEqualTo(expected);
    }
    // Every single split point, including inside "usage" and between CR and LF.
    for (int cut = 0; cut <= input.length(); cut++) {
      assertThat(run(input, new int[] {cut}, new ArrayList<>())).isEqualTo(expected);
    }
  }

  @Test
  void completeEventsGoOutInTheReadThatCarriedThem() {
    String input = stream("\n", false);
    List<Integer> pieces = new ArrayList<>();
    run(input, new int[] {TOKEN.length() + 2}, pieces);
    assertThat(pieces).containsExactly(1, 2); // nothing held back across reads
  }

  @Test
  void aPartialEventAtTheEndIsForwardedAsItIs() {
    String input = TOKEN + "\n\n" + "data: {\"choices\":[],\"usa";
    assertThat(run(input, new int[] {10, 40}, new ArrayList<>())).isEqualTo(input);
  }

  @Test
  void eventsThatMentionUsageButSaySomethingElseStay() {
    String withText = TOKEN + "\n\n"; // "usage" inside the generated text
    String error = "data: {\"error\":{\"message\":\"usage limit\"},\"usage\":{\"prompt_tokens\":1}}\n\n";
    String malformed = "data: {\"usage\": oops\n\n";
    String usageAndChoice = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"usage\":{\"completion_tokens\":1}}\n\n";
    String input = withText + error + malformed + usageAndChoice;
    assertThat(run(input, new int[0], new ArrayList<>())).isEqualTo(input);
  }

  @Test
  void discardFreesWhatIsHeld() {
    UsageChunkFilter f = new UsageChunkFilter();
    ByteBuf in = Unpooled.copiedBuffer("data: {\"partial", StandardCharsets.UTF_8);
    f.forward(in, ByteBuf::release);
    in.release();
    f.discard();
    List<ByteBuf> after = new ArrayList<>();
    f.finish(after::add);
    assertThat(after).isEmpty();
    assertThat(f.removed()).isZero();
  }
}
