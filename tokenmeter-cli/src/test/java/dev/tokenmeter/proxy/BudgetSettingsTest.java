package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.Period;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Budgets in the settings file and flags, and every mistake named on its own line. */
class BudgetSettingsTest {

  @Test
  void budgetsComeFromTheFileAndTheFlagsReplaceThem(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("keys.txt"), Tenants.hash("acme", "k1").line() + "\n");
    Files.writeString(dir.resolve("prices.yaml"), "currency: usd\nmodels:\n  - {model: \"*\", input: 1, output: 4}\n");
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{url: "http://127.0.0.1:8000"}]
        tenants: {keys_file: keys.txt}
        prices_file: prices.yaml
        budgets:
          - {tenant: acme, limit: 2000000 tokens, period: day, enforce: true}
          - {tenant: acme, limit: 250 USD, period: month}
        budget_default_output_tokens: 1024
        alert_webhook: http://127.0.0.1:9000/hook
        """);
    BudgetPlan p = ProxySettings.read(config).resolve(Map.of()).budgets();
    assertThat(p.budgets()).containsExactly(
        new Budget("acme", 2_000_000, null, Period.DAY, true), new Budget("acme", 250, "USD", Period.MONTH, false));
    assertThat(p.defaultOutputTokens()).isEqualTo(1024);
    assertThat(p.webhookOrNull()).isEqualTo(URI.create("http://127.0.0.1:9000/hook"));

    ProxySettings flags = new ProxySettings();
    flags.budgets.add(ProxySettings.BudgetSpec.flag("anonymous=5000 tokens/month/enforce"));
    flags.budgetDefaultOutput = 7;
    ProxySettings merged = new ProxySettings();
    merged.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    BudgetPlan q = merged.overriddenBy(flags).resolve(Map.of()).budgets();
    assertThat(q.budgets()).containsExactly(new Budget("anonymous", 5000, null, Period.MONTH, true));
    assertThat(q.defaultOutputTokens()).isEqualTo(7);
    assertThat(q.webhookOrNull()).isNull();
    assertThat(new ProxySettings().overriddenBy(new ProxySettings()).budgets).isEmpty();

    ProxySettings byHeader = new ProxySettings();
    byHeader.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    byHeader.keysFile = dir.resolve("keys.txt").toString();
    byHeader.tenantHeader = "x-tenant";
    byHeader.budgets.add(ProxySettings.BudgetSpec.flag("named-by-header=10 tokens/day"));
    assertThat(byHeader.resolve(Map.of()).budgets().budgets()).extracting(Budget::tenant).containsExactly("named-by-header");
  }

  @Test
  void contextLengthsComeFromTheFileInOrderAndTheFlagsReplaceThem(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{url: "http://127.0.0.1:8000"}]
        context_lengths: {"llama-3.1-8b*": 8192, "llama-*": 131072}
        """);
    assertThat(ProxySettings.read(config).resolve(Map.of()).budgets().contextLengths())
        .containsExactly(Map.entry("llama-3.1-8b*", 8192), Map.entry("llama-*", 131_072));
    ProxySettings flags = new ProxySettings();
    ProxySettings.contextLengthFlag("qwen*=40960", flags);
    assertThat(ProxySettings.read(config).overriddenBy(flags).resolve(Map.of()).budgets().contextLengths())
        .containsExactly(Map.entry("qwen*", 40_960));
    assertThat(ProxySettings.read(config).resolve(Map.of()).budgets().defaultOutputTokens()).isEqualTo(4096);
  }

  @Test
  void aContextLengthThatIsNotAPositiveNumberIsOneLineEach(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{url: "http://127.0.0.1:8000"}]
        context_lengths: {"a*": big, "b*": 0}
        """);
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .hasMessageContaining("2 mistakes")
        .hasMessageContaining("context length of 'a*': not a whole number of tokens above 0; write MODEL_GLOB=TOKENS,"
            + " e.g. 'llama-3*=131072'")
        .hasMessageContaining("context length of 'b*'");
    ProxySettings flags = new ProxySettings();
    flags.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    ProxySettings.contextLengthFlag("llama", flags);
    assertThatThrownBy(() -> flags.resolve(Map.of())).hasMessageContaining("context length of 'llama'");
  }

  @Test
  void eachMistakeIsOneLineNamingItAndTheFix(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("keys.txt"), Tenants.hash("acme", "k1").line() + "\n");
    ProxySettings s = new ProxySettings();
    s.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    s.keysFile = dir.resolve("keys.txt").toString();
    s.budgets.add(ProxySettings.BudgetSpec.flag("acmee=100 tokens/day"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=25 USD/month"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=100/day"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=100 tokens/week"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=100 tokens/day/maybe"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme 100 tokens"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=100 tokens/day"));
    s.budgets.add(ProxySettings.BudgetSpec.flag("acme=200 tokens/day/enforce"));
    s.budgets.add(new ProxySettings.BudgetSpec(null, "1 tokens", "day", "true"));
    s.budgetDefaultOutput = -1;
    s.alertWebhook = "ftp://x";
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10 mistakes")
        .hasMessageContaining("budget of 'acmee': no such tenant in the keys file; tenants: acme, anonymous")
        .hasMessageContaining("budget of 'acme': a money limit ('25 USD') needs a price table: give --prices FILE")
        .hasMessageContaining("budget of 'acme': limit '100': write 'N tokens' or 'N USD'")
        .hasMessageContaining("budget of 'acme': period 'week' is not day or month")
        .hasMessageContaining("budget of 'acme': enforce 'maybe' is not true or false")
        .hasMessageContaining("--budget 'acme 100 tokens': write TENANT=LIMIT/PERIOD[/enforce]")
        .hasMessageContaining("budget of 'acme': two budgets in tokens per day; keep one")
        .hasMessageContaining("budget without a tenant")
        .hasMessageContaining("budget_default_output_tokens must be 0 or more, got -1")
        .hasMessageContaining("alert webhook 'ftp://x': write an http(s)://HOST[:PORT]/PATH URL");
  }

  @Test
  void theFleetSyncIntervalAndTheProxyIdComeFromTheFileOrTheFlags(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{url: "http://127.0.0.1:8000"}]
        budget_sync_ms: 250
        proxy_id: edge-1
        """);
    ProxySettings file = ProxySettings.read(config);
    assertThat(file.resolve(Map.of()).budgets().syncIntervalNanos()).isEqualTo(250_000_000L);
    assertThat(file.proxyIdOrDefault()).isEqualTo("edge-1");
    ProxySettings flags = new ProxySettings();
    flags.budgetSyncMillis = 0L; // --budget-sync off
    flags.proxyId = "edge-2";
    ProxySettings merged = file.overriddenBy(flags);
    assertThat(merged.resolve(Map.of()).budgets().syncIntervalNanos()).isZero();
    assertThat(merged.proxyIdOrDefault()).isEqualTo("edge-2");

    ProxySettings none = new ProxySettings();
    none.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    assertThat(none.resolve(Map.of()).budgets().syncIntervalNanos()).isEqualTo(1_000_000_000L);
    assertThat(none.proxyIdOrDefault()).endsWith(":" + ProcessHandle.current().pid()).doesNotContainAnyWhitespaces();
  }

  @Test
  void aBadSyncIntervalOrProxyIdIsOneLineEach() {
    ProxySettings s = new ProxySettings();
    s.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:8000", null));
    s.budgetSyncMillis = -5L;
    s.proxyId = "edge 1";
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 mistakes")
        .hasMessageContaining("budget_sync_ms must be 0 (off) to 3600000 (1 h), got -5")
        .hasMessageContaining("proxy_id 'edge 1': 1 to 100 characters without spaces or control characters, e.g. edge-1");
  }
}
