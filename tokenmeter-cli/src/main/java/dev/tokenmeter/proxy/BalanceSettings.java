package dev.tokenmeter.proxy;

import dev.tokenmeter.proxy.balance.Balance;
import dev.tokenmeter.proxy.balance.SeedCurve;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Checks the balance settings as written ({@code --balance}, {@code --fluid-tps}, {@code --tps-seed}). */
final class BalanceSettings {
  private BalanceSettings() {}

  /**
   * The balance policy, or null when none is set; each mistake is one line in {@code errors}.
   *
   * @param declared the upstream names, in order
   */
  static Balance resolve(
      String balance, Double fluidTps, Map<String, String> seeds, List<String> declared, List<String> errors) {
    if (balance == null) {
      if (!seeds.isEmpty() || fluidTps != null) {
        errors.add((seeds.isEmpty() ? "--fluid-tps" : "--tps-seed")
            + " only works with --balance tps; add --balance tps");
      }
      return null;
    }
    Balance.Policy policy;
    try {
      policy = Balance.Policy.parse(balance);
    } catch (IllegalArgumentException e) {
      errors.add(e.getMessage());
      return null;
    }
    boolean ok = true;
    if (policy == Balance.Policy.TPS && declared.size() < 2) {
      errors.add(Routing.TPS_NEEDS_SEVERAL);
      ok = false;
    }
    if (policy != Balance.Policy.TPS && (!seeds.isEmpty() || fluidTps != null)) {
      errors.add("--tps-seed and --fluid-tps only work with --balance tps, not " + policy.flag());
      ok = false;
    }
    if (fluidTps != null && !(fluidTps > 0 && fluidTps < 1e6)) {
      errors.add("--fluid-tps " + fluidTps + ": write a positive number of tokens/s, e.g. 30");
      ok = false;
    }
    Map<String, SeedCurve> curves = new LinkedHashMap<>();
    for (Map.Entry<String, String> s : seeds.entrySet()) {
      if (!declared.contains(s.getKey())) {
        errors.add("--tps-seed " + s.getKey() + "=" + s.getValue() + " names no upstream; upstreams: "
            + String.join(", ", declared));
        ok = false;
        continue;
      }
      try {
        curves.put(s.getKey(), SeedCurve.read(s.getKey(), Path.of(s.getValue())));
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
        ok = false;
      }
    }
    return ok
        ? new Balance(policy, fluidTps == null ? Balance.DEFAULT_FLUID_TPS : fluidTps,
            Balance.DEFAULT_COOL_DOWN_NANOS, curves)
        : null;
  }
}
