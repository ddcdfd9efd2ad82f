package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.client.EndpointConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --variant NAME:key=value,...}: parsing, inheritance from the bench's flags, usage errors. */
class VariantTest {
  @TempDir Path tmp;

  @Test
  void parsesEveryKey() {
    Variant v = Variant.parse("fast-1:model=m1,url=http://127.0.0.1:9,system=Be brief.,header=X-A: 1,"
        + "header=X-B: 2,extra-body={\"temperature\":0,\"top_p\":1},api-key-env=KEY_B");
    assertThat(v).isEqualTo(new Variant("fast-1", "m1", "http://127.0.0.1:9", "Be brief.",
        List.of("X-A: 1", "X-B: 2"), "{\"temperature\":0,\"top_p\":1}", "KEY_B"));
  }

  @Test
  void aVariantMaySpeakAnotherApi() {
    Variant v = Variant.parse("claude:api=Anthropic,model=claude-sonnet-4-5,api-key-env=ANTHROPIC_KEY");
    assertThat(v.api()).isEqualTo("anthropic");
    TargetOptions base = new TargetOptions();
    base.url = "http://127.0.0.1:9";
    TargetOptions t = v.over(base);
    assertThat(t.api).isEqualTo("anthropic");
    assertThat(Variant.parse("gpt:model=gpt-4.1").over(base).api).isEqualTo("chat");
    assertThatThrownBy(() -> Variant.parse("x:api=bedrock"))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--variant x: unknown API 'bedrock': use one of chat, completions, anthropic");
  }

  @Test
  void aBareNameInheritsEverything() {
    assertThat(Variant.parse("a")).isEqualTo(new Variant("a", null, null, null, List.of(), null, null));
    assertThat(Variant.parse("a:")).isEqualTo(Variant.parse("a"));
  }

  @Test
  void commasInsideAValueStayInIt() {
    Variant v = Variant.parse("b:system=Hello, world, be kind,model=m2");
    assertThat(v.system()).isEqualTo("Hello, world, be kind");
    assertThat(v.model()).isEqualTo("m2");
  }

  @Test
  void unsetKeysInheritTheBenchFlagsAndSetOnesWin() {
    TargetOptions base = new TargetOptions();
    base.url = "http://127.0.0.1:8000";
    base.model = "base-model";
    base.headers.add("X-A: base");
    base.headers.add("X-Keep: yes");
    base.extraBody = "{\"ignore_eos\":true,\"temperature\":1}";
    EndpointConfig a = Variant.parse("a").over(base).config(base.model);
    assertThat(a.baseUrl().toString()).isEqualTo("http://127.0.0.1:8000");
    assertThat(a.headers()).isEqualTo(Map.of("X-A", "base", "X-Keep", "yes"));
    assertThat(a.extraBodyJson()).isEqualTo(base.extraBody);

    TargetOptions b = Variant.parse("b:url=http://127.0.0.1:9000,model=m2,header=X-A: b,"
        + "extra-body={\"temperature\":0}").over(base);
    EndpointConfig cb = b.config(b.model);
    assertThat(cb.baseUrl().toString()).isEqualTo("http://127.0.0.1:9000");
    assertThat(cb.model()).isEqualTo("m2");
    assertThat(cb.headers()).isEqualTo(Map.of("X-A", "b", "X-Keep", "yes"));
    assertThat(cb.extraBodyJson()).isEqualTo("{\"ignore_eos\":true,\"temperature\":0}");
    // The base options are untouched.
    assertThat(base.headers).containsExactly("X-A: base", "X-Keep: yes");
    assertThat(base.model).isEqualTo("base-model");
  }

  @Test
  void systemFromAFile() throws Exception {
    Path f = Files.writeString(tmp.resolve("sys.txt"), "You are terse.");
    assertThat(Variant.parse("a:system=@" + f).systemPrompt()).isEqualTo("You are terse.");
    assertThat(Variant.parse("a:system=plain").systemPrompt()).isEqualTo("plain");
    assertThat(Variant.parse("a").systemPrompt()).isNull();
    assertThatThrownBy(() -> Variant.parse("a:system=@" + tmp.resolve("missing.txt")).systemPrompt())
        .isInstanceOf(UsageException.class).hasMessageContaining("missing.txt");
  }

  @Test
  void malformedVariantsAreUsageErrors() {
    assertUsage("a b:model=x", "the name before ':'");
    assertUsage(":model=x", "the name before ':'");
    assertUsage("a:colour=red", "'colour=red' is not key=value");
    assertUsage("a:model", "'model' is not key=value");
    assertUsage("a:model=x,model=y", "model given twice");
    assertUsage("a:header=NoColon", "must look like 'Name: value'");
    assertUsage("a:extra-body={\"x\":", "extra-body is not valid JSON");
    assertUsage("a:extra-body=[1]", "extra-body must be a JSON object");
  }

  @Test
  void needsTwoUniquelyNamedVariants() {
    assertThatThrownBy(() -> Variant.parseAll(List.of("a:model=x")))
        .isInstanceOf(UsageException.class).hasMessageContaining("at least two");
    assertThatThrownBy(() -> Variant.parseAll(List.of("a:model=x", "a:model=y")))
        .isInstanceOf(UsageException.class).hasMessageContaining("'a' given twice");
    assertThat(Variant.parseAll(List.of("a", "b", "c"))).extracting(Variant::name).containsExactly("a", "b", "c");
  }

  private static void assertUsage(String text, String mention) {
    assertThatThrownBy(() -> Variant.parse(text)).isInstanceOf(UsageException.class)
        .hasMessageContaining(mention).hasMessageNotContaining("\n");
  }
}
