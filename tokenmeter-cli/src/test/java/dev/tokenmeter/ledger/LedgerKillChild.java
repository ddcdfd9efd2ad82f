package dev.tokenmeter.ledger;

import java.io.PrintStream;
import java.util.Map;

/**
 * The "proxy" that {@code dev.tokenmeter.it.LedgerKillIT} kills: writes {@link LedgerFixtures#sample} records through
 * a {@link LedgerWriter} until it is killed, printing {@code seq epochMillis} after accepting each.
 * First line: {@code ready BOUND_MS}. Stops by itself after 60 s should nobody kill it.
 */
public final class LedgerKillChild {
  private LedgerKillChild() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, false, java.nio.charset.StandardCharsets.UTF_8);
    LedgerWriter w = Ledgers.open(args[0], Map.of()).writer();
    out.println("ready " + w.durabilityBoundNanos() / 1_000_000);
    out.flush();
    long stopAt = System.currentTimeMillis() + 60_000;
    for (long seq = 0; System.currentTimeMillis() < stopAt; seq++) {
      long now = System.currentTimeMillis();
      w.accept(LedgerFixtures.sample(seq, now));
      out.println(seq + " " + now);
      out.flush();
      if (seq % 4 == 0) {
        Thread.sleep(1);
      }
    }
    w.close();
  }
}
