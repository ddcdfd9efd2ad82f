package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's settings: the admin token and the feed's window. */
class DashboardSettingsTest {
  @Test
  void theAdminTokenComesFromTheFileAndAFlagWins(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("p.yaml"),
        "upstreams: [{url: 'http://127.0.0.1:9'}]\nadmin_token: from-the-file-0123456\n");
    assertThat(ProxySettings.read(file).resolve(Map.of()).adminTokenOrNull()).isEqualTo("from-the-file-0123456");
    ProxySettings flags = new ProxySettings();
    flags.adminToken = "from-the-flag-0123456";
    assertThat(ProxySettings.read(file).overriddenBy(flags).resolve(Map.of()).adminTokenOrNull())
        .isEqualTo("from-the-flag-0123456");
    ProxySettings none = new ProxySettings();
    none.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:9", null));
    assertThat(none.resolve(Map.of()).adminTokenOrNull()).isNull();
  }

  @Test
  void aShortTokenIsOneLineNamingTheFix() {
    ProxySettings s = new ProxySettings();
    s.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:9", null));
    s.adminToken = "short";
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .hasMessage("a mistake in the proxy's settings:\n  admin_token: at least 16 characters, e.g. the output of"
            + " 'openssl rand -hex 16'");
  }

  @Test
  void windowsAreSecondsMinutesOrAnHour() {
    assertThat(DashboardRoutes.windowSeconds("5m")).isEqualTo(300);
    assertThat(DashboardRoutes.windowSeconds("1h")).isEqualTo(3_600);
    assertThat(DashboardRoutes.windowSeconds("90s")).isEqualTo(90);
    assertThat(DashboardRoutes.windowSeconds(" 45 ")).isEqualTo(45);
    for (String bad : new String[] {"0m", "2h", "61m", "abc", "", "m", "-5m", "1234567s"}) {
      assertThatThrownBy(() -> DashboardRoutes.windowSeconds(bad)).as(bad)
          .hasMessage("window '" + bad + "' is not 1s to 1h; write e.g. window=5m");
    }
  }
}
