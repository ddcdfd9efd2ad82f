package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.Alert;
import dev.tokenmeter.governance.WebhookNotifier;
import java.io.PrintStream;
import java.net.URI;
import java.util.function.Consumer;

/**
 * Where the proxy's alerts go, whatever raised them (budgets, SLOs, drift): one line on the log,
 * and one post to the {@code --alert-webhook} when there is one, through a single notifier.
 */
final class Alerts implements Consumer<Alert>, AutoCloseable {
  static final String PREFIX = "tokenmeter proxy: ";

  private final PrintStream log;
  private final WebhookNotifier webhookOrNull;

  Alerts(URI webhookUrlOrNull, PrintStream log) {
    this.log = log;
    this.webhookOrNull = webhookUrlOrNull == null ? null : WebhookNotifier.of(webhookUrlOrNull, line -> log.println(PREFIX + line));
  }

  @Override
  public void accept(Alert alert) {
    log.println(PREFIX + alert.line());
    if (webhookOrNull != null) {
      webhookOrNull.accept(alert);
    }
  }

  /** Lets queued posts finish (up to 2 s), then stops. */
  @Override
  public void close() {
    if (webhookOrNull != null) {
      webhookOrNull.close();
    }
  }
}
