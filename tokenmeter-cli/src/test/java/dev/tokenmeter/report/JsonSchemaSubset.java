package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A checker for the subset of JSON Schema (draft 2020-12) that {@code docs/summary.schema.json}
 * uses: {@code type} (a name or a list of names), {@code enum}, {@code required}, {@code
 * properties}, {@code additionalProperties} (boolean or schema), {@code items} and local {@code
 * $ref} ({@code #/$defs/...}). Any other keyword is an error in the schema, so the subset cannot
 * silently grow. Test code.
 */
public final class JsonSchemaSubset {
  private static final List<String> KNOWN =
      List.of(
          "$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "required",
          "properties", "additionalProperties", "items");

  private final JsonNode root;
  private final List<String> errors = new ArrayList<>();

  private JsonSchemaSubset(JsonNode root) {
    this.root = root;
  }

  /** Every violation of {@code schema} by {@code instance}, as "path: message"; empty if valid. */
  public static List<String> check(JsonNode schema, JsonNode instance) {
    JsonSchemaSubset c = new JsonSchemaSubset(schema);
    c.check(schema, instance, "$");
    return c.errors;
  }

  private void check(JsonNode schema, JsonNode value, String path) {
    for (Map.Entry<String, JsonNode> e : schema.properties()) {
      if (!KNOWN.contains(e.getKey())) {
        errors.add(path + ": schema keyword " + e.getKey() + " is not in the checked subset");
      }
    }
    if (schema.has("$ref")) {
      check(resolve(schema.get("$ref").asText()), value, path);
    }
    if (schema.has("type") && !typeMatches(schema.get("type"), value)) {
      errors.add(path + ": expected " + schema.get("type") + ", got " + value.getNodeType());
      return;
    }
    if (schema.has("enum") && !contains(schema.get("enum"), value)) {
      errors.add(path + ": " + value + " is not one of " + schema.get("enum"));
    }
    if (value.isObject()) {
      object(schema, value, path);
    }
    if (value.isArray() && schema.has("items")) {
      for (int i = 0; i < value.size(); i++) {
        check(schema.get("items"), value.get(i), path + "[" + i + "]");
      }
    }
  }

  private void object(JsonNode schema, JsonNode value, String path) {
    if (schema.has("required")) {
      for (JsonNode name : schema.get("required")) {
        if (!value.has(name.asText())) {
          errors.add(path + ": required property " + name.asText() + " is missing");
        }
      }
    }
    JsonNode props = schema.path("properties");
    JsonNode additional = schema.get("additionalProperties");
    for (Map.Entry<String, JsonNode> e : value.properties()) {
      String child = path + "." + e.getKey();
      if (props.has(e.getKey())) {
        check(props.get(e.getKey()), e.getValue(), child);
      } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
        errors.add(path + ": property " + e.getKey() + " is not in the schema");
      } else if (additional != null && additional.isObject()) {
        check(additional, e.getValue(), child);
      }
    }
  }

  private JsonNode resolve(String ref) {
    if (!ref.startsWith("#/")) {
      throw new IllegalArgumentException("only local references are supported: " + ref);
    }
    JsonNode target = root.at(ref.substring(1));
    if (target.isMissingNode()) {
      throw new IllegalArgumentException("dangling reference " + ref);
    }
    return target;
  }

  private static boolean typeMatches(JsonNode type, JsonNode value) {
    if (type.isArray()) {
      for (JsonNode t : type) {
        if (typeMatches(t, value)) {
          return true;
        }
      }
      return false;
    }
    return switch (type.asText()) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      case "null" -> value.isNull();
      default -> throw new IllegalArgumentException("unknown type " + type);
    };
  }

  private static boolean contains(JsonNode options, JsonNode value) {
    for (JsonNode o : options) {
      if (o.equals(value)) {
        return true;
      }
    }
    return false;
  }
}
