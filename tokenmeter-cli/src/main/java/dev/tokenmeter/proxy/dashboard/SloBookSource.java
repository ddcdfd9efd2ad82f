package dev.tokenmeter.proxy.dashboard;

import dev.tokenmeter.governance.SloBook;
import dev.tokenmeter.governance.SloStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The dashboard's SLO rows from the proxy's live SLOs: one row per objective and scope. */
public final class SloBookSource implements SloSource {
  private final SloBook book;

  public SloBookSource(SloBook book) {
    this.book = book;
  }

  @Override
  public boolean configured() {
    return true;
  }

  @Override
  public List<SloRow> rows() {
    List<SloRow> rows = new ArrayList<>();
    for (SloStatus s : book.snapshot()) {
      rows.add(new SloRow(s.objective(), s.scope(), s.state().name().toLowerCase(Locale.ROOT), detail(s)));
    }
    return rows;
  }

  /** "5m: SLI 97.50% of 40 requests, burn 2.50; 1h: ..." over the windows that counted a request. */
  static String detail(SloStatus s) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Long> w : s.requests().entrySet()) {
      if (w.getValue() == 0) {
        continue;
      }
      parts.add(String.format(Locale.ROOT, "%s: SLI %.2f%% of %d requests, burn %.2f", w.getKey(),
          100 * s.sli().get(w.getKey()), w.getValue(), s.burnRates().get(w.getKey())));
    }
    String budget = String.format(Locale.ROOT, "error budget %.2f%%", 100 * s.budget());
    return parts.isEmpty() ? "no requests counted yet; " + budget : String.join("; ", parts) + "; " + budget;
  }
}
