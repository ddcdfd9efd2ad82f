package dev.tokenmeter.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One {@code --variant NAME[:key=value[,key=value...]]} of {@code bench}: a name and the target
 * settings in which it differs from the bench's own flags. Keys: {@code model}, {@code url},
 * {@code system} (a system prompt put before every request's messages; {@code @FILE} reads it from
 * a file), {@code header} ({@code 'K: V'}, repeatable), {@code extra-body} (a JSON object) and
 * {@code api-key-env}. A key left out inherits the bench's flag; {@code header} and {@code
 * extra-body} are merged over the bench's (the variant's value wins per header name and per JSON
 * field); {@code api} names another {@code --api} (Claude against GPT under one schedule: {@code
 * --variant claude:api=anthropic,url=https://api.anthropic.com,model=...}). A value may hold commas, except right before another {@code key=}: {@code
 * extra-body={"a":1,"b":2}} is one value. A bare {@code NAME} is the bench's target as it is (an
 * A/A run). Immutable.
 *
 * @param name [A-Za-z0-9_-]+, the results subfolder's name
 * @param model the model field, or null to inherit
 * @param url the server, or null to inherit
 * @param system the system prompt as given ({@code @FILE} or the text), or null for none
 * @param headers extra headers, {@code 'K: V'} each, in order
 * @param extraBody a JSON object merged over the bench's --extra-body, or null
 * @param apiKeyEnv the API key's environment variable, or null to inherit
 * @param api the {@code --api} name, or null to inherit
 */
record Variant(
    String name, String model, String url, String system, List<String> headers, String extraBody,
    String apiKeyEnv, String api) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");
  private static final List<String> KEYS = List.of("model", "url", "system", "header", "extra-body", "api-key-env", "api");
  /** A comma that starts another {@code key=}: commas elsewhere belong to the value. */
  private static final Pattern SEPARATOR =
      Pattern.compile(",(?=\\s*(?:" + String.join("|", KEYS) + ")=)");

  Variant {
    headers = List.copyOf(headers);
  }

  /** A variant that keeps the bench's {@code --api}. */
  Variant(String name, String model, String url, String system, List<String> headers, String extraBody, String apiKeyEnv) {
    this(name, model, url, system, headers, extraBody, apiKeyEnv, null);
  }

  /** Parses one {@code --variant} value; anything malformed is a {@link UsageException}. */
  static Variant parse(String text) {
    int colon = text.indexOf(':');
    String name = (colon < 0 ? text : text.substring(0, colon)).trim();
    if (!NAME.matcher(name).matches()) {
      throw new UsageException("--variant '" + text + "': the name before ':' must be letters, digits, '_' or '-',"
          + " e.g. --variant a:model=llama-8b");
    }
    String body = colon < 0 ? "" : text.substring(colon + 1).trim();
    Map<String, String> single = new LinkedHashMap<>();
    List<String> headers = new ArrayList<>();
    if (!body.isEmpty()) {
      for (String pair : SEPARATOR.split(body)) {
        int eq = pair.indexOf('=');
        String key = eq < 0 ? pair.trim() : pair.substring(0, eq).trim();
        if (eq < 0 || !KEYS.contains(key)) {
          throw new UsageException("--variant " + name + ": '" + pair + "' is not key=value with a key of "
              + String.join(", ", KEYS));
        }
        String value = pair.substring(eq + 1).trim();
        if (key.equals("header")) {
          if (value.indexOf(':') <= 0) {
            throw new UsageException("--variant " + name + ": header '" + value + "' must look like 'Name: value'");
          }
          headers.add(value);
        } else if (single.put(key, value) != null) {
          throw new UsageException("--variant " + name + ": " + key + " given twice");
        }
      }
    }
    String extra = single.get("extra-body");
    if (extra != null) {
      object(extra, "--variant " + name + ": extra-body");
    }
    String api = blankToNull(single.get("api"));
    if (api != null) {
      try {
        api = Api.parse(api).wireName();
      } catch (IllegalArgumentException e) {
        throw new UsageException("--variant " + name + ": " + e.getMessage());
      }
    }
    return new Variant(name, blankToNull(single.get("model")), blankToNull(single.get("url")),
        single.get("system"), headers, extra, blankToNull(single.get("api-key-env")), api);
  }

  /** Parses every {@code --variant}: at least two, names unique. */
  static List<Variant> parseAll(List<String> texts) {
    if (texts.size() == 1) {
      throw new UsageException("--variant needs at least two variants to compare, e.g. --variant a:model=m1"
          + " --variant b:model=m2");
    }
    List<Variant> variants = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (String t : texts) {
      Variant v = parse(t);
      if (!names.add(v.name())) {
        throw new UsageException("--variant name '" + v.name() + "' given twice; give each variant its own name");
      }
      variants.add(v);
    }
    return variants;
  }

  /** The bench's target options with this variant's settings over them ({@code base} untouched). */
  TargetOptions over(TargetOptions base) {
    TargetOptions t = base.copy();
    if (url != null) {
      t.url = url;
    }
    if (model != null) {
      t.model = model;
    }
    if (apiKeyEnv != null) {
      t.apiKeyEnv = apiKeyEnv;
    }
    if (api != null) {
      t.api = api;
    }
    t.headers = new ArrayList<>(base.headers);
    t.headers.addAll(headers); // later wins in TargetOptions.headerMap
    if (extraBody != null) {
      ObjectNode merged = base.extraBody == null || base.extraBody.isBlank()
          ? JSON.createObjectNode()
          : object(base.extraBody, "--extra-body").deepCopy();
      merged.setAll(object(extraBody, "--variant " + name + ": extra-body"));
      t.extraBody = merged.toString();
    }
    return t;
  }

  /** The system prompt's text ({@code @FILE} read, UTF-8), or null for none. */
  String systemPrompt() {
    if (system == null || !system.startsWith("@")) {
      return system;
    }
    Path file = Path.of(system.substring(1));
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (text.isBlank()) {
        throw new UsageException("--variant " + name + ": system prompt file " + file + " is empty");
      }
      return text;
    } catch (IOException e) {
      throw new UsageException("--variant " + name + ": cannot read system prompt file " + file + " ("
          + e.getClass().getSimpleName() + "); give system=@FILE with a readable file or system=TEXT");
    }
  }

  private static ObjectNode object(String json, String what) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UsageException(what + " is not valid JSON (" + e.getOriginalMessage() + "); example: '{\"ignore_eos\":true}'");
    }
    if (node == null || !node.isObject()) {
      throw new UsageException(what + " must be a JSON object, e.g. '{\"ignore_eos\":true}'");
    }
    return (ObjectNode) node;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
