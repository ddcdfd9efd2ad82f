package dev.tokenmeter.proxy.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AdminGateTest {
  private static final String TOKEN = "0123456789abcdef0123";

  @Test
  void withoutATokenLoopbackIsOpenAndAnyOtherListenerClosed() {
    assertThat(AdminGate.of(true, null).check(null, null)).isInstanceOf(AdminGate.Verdict.Allowed.class);
    AdminGate exposed = AdminGate.of(false, null);
    assertThat(exposed.hasToken()).isFalse();
    assertThat(exposed.check("Bearer " + TOKEN, TOKEN))
        .isEqualTo(new AdminGate.Verdict.Refused("the proxy listens on a non-loopback address, so its dashboard"
            + " needs an admin token: start it with --admin-token TOKEN (or admin_token in the settings file)"));
  }

  @Test
  void withATokenOnlyTheTokenOpensIt() {
    for (boolean loopback : new boolean[] {true, false}) {
      AdminGate g = AdminGate.of(loopback, TOKEN);
      assertThat(g.hasToken()).isTrue();
      assertThat(g.check("Bearer " + TOKEN, null)).isInstanceOf(AdminGate.Verdict.Allowed.class);
      assertThat(g.check("bearer  " + TOKEN + " ", null)).isInstanceOf(AdminGate.Verdict.Allowed.class);
      assertThat(g.check(null, TOKEN)).isInstanceOf(AdminGate.Verdict.Allowed.class);
      assertThat(g.check(null, null)).isInstanceOf(AdminGate.Verdict.Refused.class)
          .hasToString("Refused[message=the dashboard needs the admin token: open /dashboard?token=TOKEN or send"
              + " Authorization: Bearer TOKEN]");
      assertThat(g.check("Bearer " + TOKEN + "x", null)).isEqualTo(new AdminGate.Verdict.Refused("wrong admin token for the dashboard"));
      assertThat(g.check(null, TOKEN.substring(1))).isInstanceOf(AdminGate.Verdict.Refused.class);
      assertThat(g.check("Basic " + TOKEN, null)).isInstanceOf(AdminGate.Verdict.Refused.class);
    }
  }

  /** /metrics names tenants and models: beyond loopback it needs the token, as the dashboard does. */
  @Test
  void aScrapeBeyondLoopbackNeedsTheToken() {
    assertThat(AdminGate.of(true, null).checkScrape(null)).isInstanceOf(AdminGate.Verdict.Allowed.class);
    assertThat(AdminGate.of(true, TOKEN).checkScrape(null)).as("a local Prometheus").isInstanceOf(AdminGate.Verdict.Allowed.class);
    assertThat(AdminGate.of(false, null).checkScrape("Bearer " + TOKEN)).isInstanceOf(AdminGate.Verdict.Refused.class)
        .asString().contains("--admin-token");
    AdminGate g = AdminGate.of(false, TOKEN);
    assertThat(g.checkScrape("Bearer " + TOKEN)).isInstanceOf(AdminGate.Verdict.Allowed.class);
    assertThat(g.checkScrape(null)).isInstanceOf(AdminGate.Verdict.Refused.class);
    assertThat(g.checkScrape("Bearer x" + TOKEN)).isEqualTo(new AdminGate.Verdict.Refused("wrong admin token for /metrics"));
  }

  @Test
  void aBlankTokenIsRefused() {
    assertThatThrownBy(() -> AdminGate.of(false, "  ")).hasMessageContaining("blank");
  }
}
