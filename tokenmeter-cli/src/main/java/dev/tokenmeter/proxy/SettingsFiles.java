package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Reads the files the settings name (keys, prices), adding each mistake to a list. Stateless. */
final class SettingsFiles {
  private SettingsFiles() {}

  /**
   * The tenants: from {@code keysFile} (lines {@code TENANT sha256:SALT:HASH}, {@code #} comments)
   * and/or {@code header}; unknown keys refused when {@code unknown} is {@code refuse}.
   */
  static Tenants tenants(String keysFile, String header, String unknown, List<String> errors) {
    boolean refuse = false;
    if (unknown != null) {
      switch (unknown.strip().toLowerCase(Locale.ROOT)) {
        case "refuse" -> refuse = true;
        case "anonymous" -> refuse = false;
        default -> errors.add("unknown keys: '" + unknown + "' is neither 'refuse' nor 'anonymous'");
      }
    }
    List<Tenants.Entry> entries = new ArrayList<>();
    if (keysFile != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(keysFile), StandardCharsets.UTF_8);
      } catch (IOException e) {
        errors.add("keys file " + keysFile + " cannot be read: " + ProxySettings.describe(e));
        lines = List.of();
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        try {
          entries.add(Tenants.Entry.parse(line));
        } catch (IllegalArgumentException e) {
          errors.add(keysFile + " line " + (i + 1) + ": " + e.getMessage()); // never echo the line
        }
      }
    }
    if (refuse && keysFile == null) {
      errors.add("unknown keys are refused but no keys file is given: every request would get 401"
          + (header == null ? "" : " (a tenant header only chooses among a known key's tenants)")
          + "; give --keys FILE or drop --unknown-keys refuse");
    }
    return new Tenants(entries, header, refuse);
  }

  /**
   * A price table: {@code currency: USD} and {@code models: [{model: GLOB, input: PRICE, output:
   * PRICE}]}, prices per 1M tokens.
   */
  static Prices prices(Path file, List<String> errors) {
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      errors.add("prices file " + file + " cannot be read: " + ProxySettings.describe(e));
      return Prices.none();
    }
    String where = "prices file " + file;
    if (root == null || !root.isObject() || !root.path("models").isArray()) {
      errors.add(where + ": expected 'currency: USD' and 'models: [{model: GLOB, input: PER_1M, output: PER_1M}, ...]'");
      return Prices.none();
    }
    String currency = root.path("currency").asText(null);
    if (currency == null || !currency.matches("[A-Za-z]{3}")) {
      errors.add(where + ": currency must be a 3-letter code such as USD, got '" + currency + "'");
    }
    List<Prices.Entry> entries = new ArrayList<>();
    int i = 0;
    for (JsonNode m : root.get("models")) {
      i++;
      JsonNode in = m.get("input");
      JsonNode out = m.get("output");
      String model = m.path("model").asText(null);
      if (model == null || in == null || out == null || !in.isNumber() || !out.isNumber()
          || in.asDouble() < 0 || out.asDouble() < 0) {
        errors.add(where + ": entry " + i + " needs model (a glob), input and output (prices per 1M tokens, 0 or more)");
        continue;
      }
      entries.add(new Prices.Entry(model, in.asDouble(), out.asDouble()));
    }
    return currency == null || !currency.matches("[A-Za-z]{3}")
        ? Prices.none()
        : new Prices(currency.toUpperCase(Locale.ROOT), entries);
  }
}
