package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxy's settings: files in YAML and JSON, flags on top, and what each part means. */
class SettingsTest {

  @Test
  void aYamlFileSaysEverythingTheFlagsSay(@TempDir Path dir) throws Exception {
    Tenants.Entry acme = Tenants.hash("acme", "k1");
    Files.writeString(dir.resolve("keys.txt"), "# tenants\n\n" + acme.line() + "\n");
    Files.writeString(dir.resolve("prices.yaml"), "currency: eur\nmodels:\n  - {model: \"gpt-*\", input: 1, output: 4}\n");
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        listen: 0.0.0.0:9090
        upstreams:
          - {name: a, url: "http://127.0.0.1:8000"}
          - {name: b, url: "http://localhost:8001", api_key_env: B_KEY}
        routes:
          - {model: "gpt-*", upstream: b}
        route_header: x-upstream
        tenants: {keys_file: keys.txt, header: x-tenant, unknown: refuse}
        prices_file: prices.yaml
        io_threads: 2
        record_threads: 3
        record_queue: 100
        """);
    ProxyConfig c = ProxySettings.read(config).resolve(Map.of("B_KEY", "sk-b"));
    assertThat(c.listen().getPort()).isEqualTo(9090);
    assertThat(c.listen().getAddress().isAnyLocalAddress()).isTrue();
    assertThat(c.routing().upstreams().keySet()).containsExactly("a", "b");
    assertThat(c.routing().upstreams().get("b").apiKeyOrNull()).isEqualTo("sk-b");
    assertThat(c.routing().upstreams().get("b").toString()).doesNotContain("sk-b");
    assertThat(c.routing().route("gpt-4", new DefaultHttpHeaders()).name()).isEqualTo("b");
    assertThat(c.routing().route("llama", new DefaultHttpHeaders()).name()).isEqualTo("a");
    assertThat(c.routing().route("gpt-4", new DefaultHttpHeaders().set("x-upstream", "a")).name()).isEqualTo("a");
    assertThat(c.routing().route(null, new DefaultHttpHeaders().set("x-upstream", "zz"))).isNull();
    assertThat(c.tenants().refuseUnknown()).isTrue();
    assertThat(c.tenants().resolve(new DefaultHttpHeaders().set("authorization", "Bearer k1")))
        .isEqualTo(new Tenants.Result.Tenant("acme"));
    assertThat(c.prices().currency()).isEqualTo("EUR");
    assertThat(c.prices().cost("gpt-4o", 1_000_000, 500_000)).isEqualTo(3.0);
    assertThat(c.ioThreads()).isEqualTo(2);
    assertThat(c.recordThreads()).isEqualTo(3);
    assertThat(c.recordQueueCapacity()).isEqualTo(100);
  }

  @Test
  void upstreamsMayBeAMappingOfNameToUrl(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams:
          vllm: "http://10.0.0.5:8000"
          openai: {url: "https://api.openai.com", api_key_env: O_KEY}
          small: http://127.0.0.1:8001
        routes:
          - {model: "gpt-*", upstream: openai}
        """);
    ProxyConfig c = ProxySettings.read(config).resolve(Map.of("O_KEY", "sk-o"));
    assertThat(c.routing().upstreams().keySet()).containsExactly("vllm", "openai", "small");
    assertThat(c.routing().upstreams().get("vllm").hostHeader()).isEqualTo("10.0.0.5:8000");
    assertThat(c.routing().upstreams().get("openai").tls()).isTrue();
    assertThat(c.routing().upstreams().get("openai").apiKeyOrNull()).isEqualTo("sk-o");
    assertThat(c.routing().route("gpt-4o", new DefaultHttpHeaders()).name()).isEqualTo("openai");
    assertThat(c.routing().route("llama", new DefaultHttpHeaders()).name()).isEqualTo("vllm");

    Files.writeString(config, "upstreams: {a: [1, 2], b: 'ftp://x'}\n");
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .hasMessageContaining("upstreams: 'a' must be a URL or a mapping (url, api_key_env, ca_cert)")
        .hasMessageContaining("upstream b: 'ftp://x' must start with http:// or https://");
    Files.writeString(config, "upstreams: http://10.0.0.5:8000\n");
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .hasMessageContaining("upstreams: expected a list of {name, url} or a mapping of name to URL, got 'http://10.0.0.5:8000'");
  }

  @Test
  void admissionLimitsFromTheFileAndFlags(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams:
          a: {url: "http://127.0.0.1:8000", max_in_flight: 8}
          b: http://127.0.0.1:8001
        max_in_flight: 64
        max_queued: 16
        queue_timeout_ms: 2500
        max_connections: 100
        idle_timeout_ms: 30000
        """);
    AdmissionLimits limits = ProxySettings.read(config).resolve(Map.of()).admission();
    assertThat(limits).isEqualTo(new AdmissionLimits(64, Map.of("a", 8), 16, 2_500_000_000L, 100, 30_000_000_000L));
    assertThat(limits.retryAfterSeconds()).isEqualTo(3);

    ProxySettings flags = new ProxySettings();
    ProxySettings.maxInFlightFlag("b=4", flags);
    ProxySettings.maxInFlightFlag("32", flags);
    AdmissionLimits merged = ProxySettings.read(config).overriddenBy(flags).resolve(Map.of()).admission();
    assertThat(merged.maxInFlight()).isEqualTo(32);
    assertThat(merged.maxInFlightByUpstream()).isEqualTo(Map.of("a", 8, "b", 4));
    assertThat(new ProxySettings().overriddenBy(flagsFor("http://127.0.0.1:1")).resolve(Map.of()).admission())
        .isEqualTo(AdmissionLimits.DEFAULT);

    Files.writeString(config, """
        upstreams: {a: {url: "http://127.0.0.1:8000", max_in_flight: 0}}
        max_in_flight: 0
        max_queued: -1
        queue_timeout_ms: -5
        max_connections: 0
        idle_timeout_ms: 0
        """);
    ProxySettings bad = ProxySettings.read(config);
    ProxySettings.maxInFlightFlag("zz=3", bad);
    assertThatThrownBy(() -> bad.resolve(Map.of()))
        .hasMessageContaining("7 mistakes")
        .hasMessageContaining("max connections must be at least 1, got 0")
        .hasMessageContaining("idle timeout must be from 1 ms to 24 h, got 0 ms")
        .hasMessageContaining("max in flight must be at least 1, got 0")
        .hasMessageContaining("max in flight of upstream 'a' must be at least 1, got 0")
        .hasMessageContaining("max in flight zz=3 names no upstream; upstreams: a")
        .hasMessageContaining("max queued must be 0 or more, got -1")
        .hasMessageContaining("queue timeout must be from 0 to 1 h, got -5 ms");
    assertThatThrownBy(() -> ProxySettings.maxInFlightFlag("many", new ProxySettings()))
        .hasMessage("--max-in-flight 'many': write N (the proxy's limit) or NAME=N (an upstream's), N a whole number"
            + " of requests, e.g. 512 or vllm=64");
  }

  private static ProxySettings flagsFor(String url) {
    ProxySettings f = new ProxySettings();
    f.upstreams.add(new ProxySettings.UpstreamSpec(null, url, null));
    return f;
  }

  @Test
  void jsonWorksTooAndFlagsWin(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.json");
    Files.writeString(config, "{\"listen\":\"127.0.0.1:1\",\"upstreams\":[{\"url\":\"http://127.0.0.1:8000\"}],\"io_threads\":4}");
    ProxySettings flags = new ProxySettings();
    flags.listen = ":7070";
    flags.ioThreads = 1;
    ProxyConfig c = ProxySettings.read(config).overriddenBy(flags).resolve(Map.of());
    assertThat(c.listen().getAddress().isLoopbackAddress()).isTrue(); // ":PORT" binds loopback
    assertThat(c.listen().getPort()).isEqualTo(7070);
    assertThat(c.ioThreads()).isEqualTo(1);
    assertThat(c.routing().first().name()).isEqualTo("default");
    assertThat(c.tenants().resolve(new DefaultHttpHeaders())).isEqualTo(new Tenants.Result.Tenant("anonymous"));
  }

  @Test
  void mistakesOfFormAreAllListed(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, """
        upstreams: {a: 1}
        routes: [3]
        io_threads: lots
        record_queue: 0
        listen: [1]
        tenants: yes
        """);
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("upstreams: 'a' must be a URL or a mapping")
        .hasMessageContaining("routes: every entry must be a mapping")
        .hasMessageContaining("io_threads: expected a whole number, got 'lots'")
        .hasMessageContaining("record_queue must be at least 1, got 0")
        .hasMessageContaining("listen: expected a single value")
        .hasMessageContaining("tenants: expected a mapping")
        .hasMessageContaining("no upstream");
    Files.writeString(config, "- just\n- a list\n");
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .hasMessageContaining("expected a mapping of settings");
    assertThatThrownBy(() -> ProxySettings.read(dir.resolve("missing.yaml")))
        .hasMessageContaining("missing.yaml: no such file");
  }

  @Test
  void upstreamsAndRoutesAreChecked() {
    ProxySettings s = new ProxySettings();
    s.upstreams = List.of(
        new ProxySettings.UpstreamSpec("a", "http://127.0.0.1:1/v1", null),
        new ProxySettings.UpstreamSpec("a", "http://127.0.0.1:2", null),
        new ProxySettings.UpstreamSpec("c", null, null),
        new ProxySettings.UpstreamSpec("d", "http://", null),
        new ProxySettings.UpstreamSpec("e", "http://h:1 x", null));
    s.routes = List.of(new ProxySettings.RouteSpec("gpt-*", null));
    s.unknownKeys = "refuse";
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .hasMessageContaining("'http://127.0.0.1:1/v1' has a path")
        .hasMessageContaining("upstream 'c' has no url")
        .hasMessageContaining("upstream 'a' is given twice")
        .hasMessageContaining("upstream d: 'http://' is not a URL")
        .hasMessageContaining("upstream e: 'http://h:1 x' is not a URL")
        .hasMessageContaining("route 'gpt-*': write MODEL_GLOB=UPSTREAM")
        .hasMessageContaining("every request would get 401");
    ProxySettings two = new ProxySettings();
    two.upstreams = List.of(new ProxySettings.UpstreamSpec(null, "http://a:1", null),
        new ProxySettings.UpstreamSpec(null, "http://b:1", null));
    assertThatThrownBy(() -> two.resolve(Map.of())).hasMessageContaining("several upstreams need a name each");
  }

  @Test
  void keysAndPricesFilesAreChecked(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("keys.txt"), "acme sk-in-clear\nbeta sha256:00:11\n");
    Files.writeString(dir.resolve("prices.yaml"), "currency: dollars\nmodels:\n  - {model: a, input: -1, output: 2}\n  - {input: 1}\n");
    ProxySettings s = new ProxySettings();
    s.upstreams = List.of(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:1", null));
    s.keysFile = dir.resolve("keys.txt").toString();
    s.pricesFile = dir.resolve("prices.yaml").toString();
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .hasMessageContaining("keys.txt line 1: expected 'TENANT sha256:SALT:HASH'")
        .hasMessageContaining("keys.txt line 2: SALT must be at least 16 hex digits")
        .hasMessageContaining("currency must be a 3-letter code")
        .hasMessageContaining("entry 1 needs model")
        .hasMessageContaining("entry 2 needs model")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk-in-clear"));
    Files.writeString(dir.resolve("prices.yaml"), "42\n");
    s.keysFile = null;
    assertThatThrownBy(() -> s.resolve(Map.of())).hasMessageContaining("expected 'currency: USD'");
  }

  @Test
  void pricesAndGlobs() {
    Prices p = new Prices("USD", List.of(new Prices.Entry("gpt-4o-mini*", 0.15, 0.6), new Prices.Entry("gpt-4o*", 2.5, 10)));
    assertThat(p.cost("gpt-4o-mini-2024", 1_000_000, 0)).isEqualTo(0.15);
    assertThat(p.cost("gpt-4o", 0, 1_000_000)).isEqualTo(10.0);
    assertThat(p.cost("gpt-4o", -1, 10)).isNaN();
    assertThat(p.cost("claude", 1, 1)).isNaN();
    assertThat(p.cost(null, 1, 1)).isNaN();
    assertThat(Prices.none().cost("gpt-4o", 1, 1)).isNaN();
    assertThatThrownBy(() -> new Prices(null, List.of(new Prices.Entry("a", 1, 1)))).hasMessageContaining("currency");
    assertThatThrownBy(() -> new Prices.Entry("a", Double.NaN, 1)).hasMessageContaining("0 or more");
    assertThat(Routing.globPattern("a?c*.[x]").matcher("abc-9.[x]").matches()).isTrue();
    assertThat(Routing.globPattern("a?c").matcher("ac").matches()).isFalse();
  }

  @Test
  void tenantsFromKeysOrHeader() {
    Tenants.Entry e = Tenants.hash("acme", "k1");
    assertThat(Tenants.Entry.parse(e.line()).line()).isEqualTo(e.line());
    Tenants t = new Tenants(List.of(e), "x-tenant", false);
    assertThat(t.resolve(new DefaultHttpHeaders().set("api-key", "k1"))).isEqualTo(new Tenants.Result.Tenant("acme"));
    assertThat(t.resolve(new DefaultHttpHeaders().set("authorization", "bearer k1"))).isEqualTo(new Tenants.Result.Tenant("acme"));
    assertThat(t.resolve(new DefaultHttpHeaders().set("authorization", "Bearer nope").set("x-tenant", "beta")))
        .isEqualTo(new Tenants.Result.Tenant("beta"));
    assertThat(t.resolve(new DefaultHttpHeaders().set("authorization", "Basic abc"))).isEqualTo(new Tenants.Result.Tenant("anonymous"));
    Tenants strict = new Tenants(List.of(e), null, true);
    assertThat(strict.resolve(new DefaultHttpHeaders())).isEqualTo(new Tenants.Result.Refused(401, "invalid_api_key",
        "No API key provided. Send it as 'Authorization: Bearer KEY'.", "anonymous"));
    assertThat(strict.resolve(new DefaultHttpHeaders().set("authorization", "Bearer  "))).isInstanceOf(Tenants.Result.Refused.class);
    assertThat(Tenants.hash("a", "k1").line()).isNotEqualTo(Tenants.hash("a", "k1").line()); // fresh salt each time
  }

  /** A tenant header only chooses among what the key allows: it never bills a keyed tenant without its key. */
  @Test
  void aTenantHeaderCannotBillATenantTheKeyDoesNotAllow() {
    Tenants.Entry acme = Tenants.hash("acme", "k1");
    Tenants.Entry acmeTeam = Tenants.hash("acme-team", "k1"); // the same key bills two tenants
    Tenants.Entry beta = Tenants.hash("beta", "k2");
    Tenants strict = new Tenants(List.of(acme, acmeTeam, beta), "x-tenant", true);
    assertThat(strict.resolve(new DefaultHttpHeaders().set("x-tenant", "acme")))
        .as("no key, refused keys: the header alone bills nobody")
        .isEqualTo(new Tenants.Result.Refused(401, "invalid_api_key",
            "No API key provided. Send it as 'Authorization: Bearer KEY'.", "anonymous"));
    assertThat(strict.resolve(new DefaultHttpHeaders().set("authorization", "Bearer nope").set("x-tenant", "beta")))
        .isInstanceOf(Tenants.Result.Refused.class);
    assertThat(strict.resolve(new DefaultHttpHeaders().set("authorization", "Bearer k1")))
        .isEqualTo(new Tenants.Result.Tenant("acme"));
    assertThat(strict.resolve(new DefaultHttpHeaders().set("authorization", "Bearer k1").set("x-tenant", "acme-team")))
        .isEqualTo(new Tenants.Result.Tenant("acme-team"));
    Tenants.Result other = strict.resolve(new DefaultHttpHeaders().set("authorization", "Bearer k1").set("x-tenant", "beta"));
    assertThat(other).isInstanceOf(Tenants.Result.Refused.class);
    Tenants.Result.Refused no = (Tenants.Result.Refused) other;
    assertThat(no.status()).isEqualTo(403);
    assertThat(no.tenant()).isEqualTo("acme");
    assertThat(no.message()).contains("may not bill tenant 'beta'", "it bills acme, acme-team").doesNotContain("k1");

    Tenants open = new Tenants(List.of(acme, beta), "x-tenant", false);
    assertThat(open.resolve(new DefaultHttpHeaders().set("x-tenant", "gamma"))).as("an unkeyed tenant")
        .isEqualTo(new Tenants.Result.Tenant("gamma"));
    Tenants.Result keyed = open.resolve(new DefaultHttpHeaders().set("x-tenant", "beta"));
    assertThat(keyed).isInstanceOf(Tenants.Result.Refused.class);
    assertThat(((Tenants.Result.Refused) keyed).status()).isEqualTo(403);
    assertThat(((Tenants.Result.Refused) keyed).message()).contains("billed by its API key only");
    assertThat(open.resolve(new DefaultHttpHeaders().set("authorization", "Bearer k2").set("x-tenant", "acme")))
        .as("beta's key naming acme").isInstanceOf(Tenants.Result.Refused.class);
  }

  @Test
  void hopByHopHeadersAreDropped() {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    h.add("Connection", "keep-alive, X-Secret");
    h.add("Connection", "Upgrade");
    h.add("X-Secret", "1").add("Upgrade", "h2c").add("Keep-Alive", "5").add("TE", "trailers")
        .add("Trailer", "x").add("Transfer-Encoding", "chunked").add("Proxy-Connection", "x").add("X-Kept", "1");
    assertThat(HopByHop.strip(h).names()).containsExactly("X-Kept");
  }
}
