package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestBodyTest {
  private static RequestBody parse(String json) {
    return RequestBody.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsModelStreamAndWhetherTheClientAskedForUsage() {
    RequestBody b = parse("{\"model\":\"gpt-4o\",\"stream\":true}");
    assertThat(b.model()).isEqualTo("gpt-4o");
    assertThat(b.stream()).isTrue();
    assertThat(b.canAddUsage()).isTrue();
    RequestBody asked = parse("{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    assertThat(asked.clientAskedUsage()).isTrue();
    assertThat(asked.canAddUsage()).isFalse();
    assertThat(parse("{\"model\":\"m\",\"stream\":false}").canAddUsage()).isFalse();
    assertThat(parse("{\"model\":\"m\",\"stream\":\"yes\"}").canAddUsage()).isFalse();
    assertThat(parse("{\"model\":\"m\",\"stream\":true,\"stream_options\":7}").canAddUsage()).isFalse();
  }

  @Test
  void anythingButAJsonObjectIsOpaque() {
    assertThat(parse("")).isEqualTo(RequestBody.OPAQUE);
    assertThat(parse("[1,2]")).isEqualTo(RequestBody.OPAQUE);
    assertThat(parse("{not json")).isEqualTo(RequestBody.OPAQUE);
    assertThat(parse("{\"model\":3}").model()).isNull();
  }

  @Test
  void addingUsageKeepsEveryOtherMemberInOrderWithNumbersAsWritten() {
    String json = "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":false},"
        + "\"temperature\":0.70,\"seed\":12345678901234567890,\"top_p\":1e-3,\"logit_bias\":{\"50256\":-100}}";
    String out = new String(parse(json).withUsage(), StandardCharsets.UTF_8);
    assertThat(out).isEqualTo(
        "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":false,\"include_usage\":true},"
            + "\"temperature\":0.70,\"seed\":12345678901234567890,\"top_p\":0.001,\"logit_bias\":{\"50256\":-100}}");
    String nullOptions = new String(parse("{\"stream\":true,\"stream_options\":null,\"n\":1}").withUsage(), StandardCharsets.UTF_8);
    assertThat(nullOptions).isEqualTo("{\"stream\":true,\"stream_options\":{\"include_usage\":true},\"n\":1}");
  }
}
