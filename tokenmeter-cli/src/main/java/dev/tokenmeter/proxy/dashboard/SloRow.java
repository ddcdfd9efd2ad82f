package dev.tokenmeter.proxy.dashboard;

/**
 * One SLO objective's live status, as the dashboard shows it. The dashboard only displays rows; it
 * evaluates nothing. An {@link SloSource} supplies them.
 *
 * @param objective the objective as written ({@code ttft.p99<=800ms})
 * @param scope what it applies to ({@code model=llama}, {@code all})
 * @param status a short word the page colours: {@code ok}, or the most severe burn-rate alert
 *     firing, {@code ticket} or {@code page} (docs/PROXY.md, "SLOs and alerts")
 * @param detail one sentence with the figures
 */
public record SloRow(String objective, String scope, String status, String detail) {}
