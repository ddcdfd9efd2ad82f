package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

class ConversationKeyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode body(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void theHeaderWinsThenPromptCacheKeyThenUserThenAnthropicMetadata() throws Exception {
    HttpHeaders headers = new DefaultHttpHeaders().add("X-Session-Id", "s-1");
    JsonNode all = body("{\"prompt_cache_key\":\"pck\",\"user\":\"u\",\"metadata\":{\"user_id\":\"a\"}}");
    assertThat(ConversationKey.of(headers, "x-session-id", all)).isEqualTo("s-1"); // header names are case-insensitive
    assertThat(ConversationKey.of(headers, null, all)).isEqualTo("pck");
    assertThat(ConversationKey.of(headers, "x-other", body("{\"user\":\"u\",\"metadata\":{\"user_id\":\"a\"}}")))
        .isEqualTo("u");
    assertThat(ConversationKey.of(new DefaultHttpHeaders(), null, body("{\"metadata\":{\"user_id\":\"a\"}}")))
        .isEqualTo("a");
  }

  @Test
  void blankNonTextAndMissingKeysAreNone() throws Exception {
    HttpHeaders blank = new DefaultHttpHeaders().add("x-session-id", ""); // Netty refuses leading spaces
    assertThat(ConversationKey.of(blank, "x-session-id", body("{\"user\":\"\"}"))).isNull();
    assertThat(ConversationKey.of(blank, "x-session-id", body("{\"user\":42,\"metadata\":\"x\"}"))).isNull();
    assertThat(ConversationKey.of(blank, "x-session-id", null)).isNull();
    assertThat(ConversationKey.of(new DefaultHttpHeaders(), null, body("{\"user\":\"  \",\"prompt_cache_key\":\"k\"}")))
        .isEqualTo("k");
  }

  @Test
  void longKeysAreCut() throws Exception {
    String longKey = "k".repeat(1000);
    assertThat(ConversationKey.of(new DefaultHttpHeaders(), null, body("{\"user\":\"" + longKey + "\"}")))
        .hasSize(ConversationKey.MAX_CHARS);
  }
}
