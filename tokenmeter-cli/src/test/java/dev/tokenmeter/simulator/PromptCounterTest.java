package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The simulator's prompt counters, and that the server reports their count plus its chat framing. */
@Timeout(20)
class PromptCounterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A stand-in tokenizer: one id per space-separated word, the word's length. */
  private static final PromptCounter WORDS =
      PromptCounter.tokenizer("words", t -> Arrays.stream(t.split(" ")).mapToInt(String::length).toArray());

  @Test
  void charsPerFourIsTheSimulatorsOwnEstimate() {
    PromptCounter c = PromptCounter.charsPerFour();
    assertThat(c.ids("abcde")).hasSize(2).isEqualTo(PromptTokens.textIds("abcde"));
    assertThat(c.ids("")).isEmpty();
    List<String> roles = List.of("system", "user");
    List<String> contents = List.of("Be brief.", "hello there");
    assertThat(PromptTokens.chatIds(roles, contents, c))
        .isEqualTo(PromptTokens.chatIds(roles, contents))
        .hasSize(PromptTokens.chat(contents));
  }

  @Test
  void aTokenizersIdsAreTheCountAndChatAddsFourAMessageAndThree() {
    assertThat(WORDS.ids("one three")).containsExactly(3, 5);
    assertThat(WORDS.ids("")).as("empty text: no call, no ids").isEmpty();
    int[] chat = PromptTokens.chatIds(List.of("system", "user"), List.of("be brief", "one three five"), WORDS);
    assertThat(chat).hasSize(2 + 3 + 2 * PromptTokens.FRAMING_PER_MESSAGE + PromptTokens.REPLY_PRIMING);
    assertThat(Arrays.copyOfRange(chat, 4, 6)).as("the system content's ids after its framing").containsExactly(2, 5);
  }

  @Test
  void aCountingEstimateHasItsWholeCountAndSharesLeadingIdsOfLeadingWords() {
    // One token per started 3 characters of a word, white space free: additive over words.
    PromptCounter c = PromptCounter.counting("thirds", PromptCounterTest::thirds);
    String a = "the shared opening words then one ending";
    String b = "the shared opening words and another";
    assertThat(c.ids(a)).hasSize(thirds(a));
    assertThat(c.ids(b)).hasSize(thirds(b));
    int shared = thirds("the shared opening words");
    assertThat(Arrays.copyOf(c.ids(a), shared)).isEqualTo(Arrays.copyOf(c.ids(b), shared));
    assertThat(c.ids(a)[shared]).isNotEqualTo(c.ids(b)[shared]);
    assertThat(c.ids("")).isEmpty();
  }

  @Test
  void aNonAdditiveEstimateStillGivesTheWholeTextsCount() {
    PromptCounter longer = PromptCounter.counting("words+5", t -> t.isBlank() ? 0 : t.strip().split("\\s+").length + 5);
    assertThat(longer.ids("a b c")).as("3 words + 5 whole; 6 a word counted alone: cut to 8").hasSize(8);
    PromptCounter shorter = PromptCounter.counting("10 from 3 characters", t -> t.length() >= 3 ? 10 : 0);
    assertThat(shorter.ids("a b")).as("words of 0: padded to the whole count, 10").hasSize(10);
  }

  @Test
  void theServerReportsItsCountersCountPlusTheChatFraming() throws Exception {
    try (SimServer server =
            SimServer.start(SimConfig.builder().timing(TimingModel.zero()).outputLengths(OutputLengths.fixed(2))
                .promptCounter(WORDS).build());
        TestClient client = new TestClient(server)) {
      JsonNode chat = JSON.readTree(client.post("/v1/chat/completions",
          "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":\"one two\"}]}").body());
      assertThat(chat.at("/usage/prompt_tokens").asInt()).isEqualTo(4 + 2 * 4 + 3);
      JsonNode text = JSON.readTree(client.post("/v1/completions", "{\"prompt\":\"one two three\"}").body());
      assertThat(text.at("/usage/prompt_tokens").asInt()).as("no framing around a text prompt").isEqualTo(3);
      JsonNode anthropic = JSON.readTree(client.post("/v1/messages",
          "{\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"one two three\"}]}").body());
      assertThat(anthropic.at("/usage/input_tokens").asInt()).isEqualTo(3 + 4 + 3);
    }
  }

  private static int thirds(String text) {
    int n = 0;
    for (String w : text.strip().split("\\s+")) {
      n += (w.length() + 2) / 3;
    }
    return text.isBlank() ? 0 : n;
  }
}
