package dev.tokenmeter.proxy.dashboard;

import java.util.List;

/**
 * Where the dashboard's SLO panel gets its rows: the live SLO evaluation, when SLOs are configured.
 * Called on each poll of the feed; must be thread-safe and quick.
 */
public interface SloSource {
  /** The source of a proxy with no SLOs: the page says "no SLOs configured". */
  SloSource NONE = new SloSource() {
    @Override
    public boolean configured() {
      return false;
    }

    @Override
    public java.util.List<SloRow> rows() {
      return List.of();
    }
  };

  /** Whether any SLO is configured. */
  boolean configured();

  /** The objectives' status now. */
  List<SloRow> rows();
}
