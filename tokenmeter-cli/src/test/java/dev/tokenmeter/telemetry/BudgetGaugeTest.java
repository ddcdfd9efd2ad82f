package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BudgetGaugeTest {
  @Test
  void eachBudgetsUseIsAGaugeByTenantUnitAndPeriod() throws Exception {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.budgetUsed("acme", "tokens", "day", 0.25);
    m.budgetUsed("acme", "USD", "month", 0.5);
    m.budgetUsed("acme", "tokens", "day", 0.8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.scrape(out);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("# TYPE tokenmeter_proxy_budget_used_ratio gauge")
        .contains("tokenmeter_proxy_budget_used_ratio{period=\"day\",tenant=\"acme\",unit=\"tokens\"} 0.8")
        .contains("tokenmeter_proxy_budget_used_ratio{period=\"month\",tenant=\"acme\",unit=\"USD\"} 0.5");
  }
}
