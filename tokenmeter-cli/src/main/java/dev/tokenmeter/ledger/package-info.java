/**
 * The proxy's ledger: {@link dev.tokenmeter.ledger.MeteredRequest}, one row per request the proxy
 * metered, stored durably (SQLite by default, PostgreSQL for a fleet) by a writer on its own thread,
 * and read back for {@code tokenmeter proxy usage}. Knows nothing of HTTP or the CLI.
 *
 * <p>May use: core..
 */
package dev.tokenmeter.ledger;
