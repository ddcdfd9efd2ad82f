package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonCursorTest {
  @Test
  void stringsEndAtTheirQuoteWhateverTheirLengthAndOffset() {
    for (int len = 0; len < 40; len++) {
      for (int lead = 0; lead < 9; lead++) {
        String body = "x".repeat(len);
        String json = " ".repeat(lead) + "\"" + body + "\" ";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonCursor c = new JsonCursor();
        c.reset(bytes, 0, bytes.length);
        c.string();
        assertThat(c.decoded()).isEqualTo(body);
        assertThat(c.emptyString()).isEqualTo(len == 0);
      }
    }
  }

  @Test
  void anEscapeANonAsciiByteAControlCharacterOrAMissingQuoteAfterAPlainRun() {
    for (int len = 0; len < 20; len++) {
      String plain = "y".repeat(len);
      assertDecoded("\"" + plain + "\\n" + plain + "\"", plain + "\n" + plain);
      assertDecoded("\"" + plain + "é" + plain + "\"", plain + "é" + plain);
      byte[] control = ("\"" + plain + "\u0001" + plain + "\"").getBytes(StandardCharsets.UTF_8);
      JsonCursor c = new JsonCursor();
      c.reset(control, 0, control.length);
      assertThatThrownBy(c::string).isSameAs(JsonCursor.DECLINE);
      byte[] unterminated = ("\"" + plain + plain).getBytes(StandardCharsets.UTF_8);
      JsonCursor u = new JsonCursor();
      u.reset(unterminated, 0, unterminated.length);
      assertThatThrownBy(u::string).isSameAs(JsonCursor.DECLINE);
    }
  }

  private static void assertDecoded(String json, String expected) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    JsonCursor c = new JsonCursor();
    c.reset(bytes, 0, bytes.length);
    c.string();
    assertThat(c.decoded()).isEqualTo(expected);
  }
}
