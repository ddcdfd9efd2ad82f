package dev.tokenmeter.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The ledger's {@code prompt_blocks} text round-trips, and refuses what it did not write. */
class PromptBlocksTest {
  @Test
  void encodedTextReadsBackTheSameBlocks() {
    PromptBlocks b = new PromptBlocks(new long[] {0, 1, 0xabcdef012345L, (1L << 48) - 1}, 1000, 256);
    assertThat(b.encoded()).isEqualTo("256:000000000000,000000000001,abcdef012345,ffffffffffff");
    assertThat(PromptBlocks.decode(b.encoded(), 1000)).isEqualTo(b);
    PromptBlocks none = new PromptBlocks(new long[0], 0, 64);
    assertThat(PromptBlocks.decode(none.encoded(), 0)).isEqualTo(none);
  }

  @Test
  void hashesOverFortyEightBitsAndMalformedTextAreRefused() {
    assertThatThrownBy(() -> new PromptBlocks(new long[] {1L << 48}, 10, 16)).isInstanceOf(IllegalArgumentException.class);
    assertThat(PromptBlocks.keep(-1L)).isEqualTo((1L << 48) - 1);
    assertThatThrownBy(() -> PromptBlocks.decode("000000000001,2", 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PromptBlocks.decode("16:0001", 5)).hasMessageContaining("not 12 hex digits");
  }
}
