package mcptest.REVISION_ID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import mcpbinding.DecodeException;
import mcpbinding.EncodeException;
import mcpbinding.Mcp;
import mcpbinding.McpJson;

/**
 * Decodes every case of cases.json as its type (or, for a case with a method, as that client
 * request's result through the method map) and re-encodes it, checked (see ../own.ts).
 * Usage: RoundTrip cases.json results.json. Only the bindings and Jackson.
 */
public final class RoundTrip {
    public static void main(String[] args) throws Exception {
        JsonNode cases = McpJson.parse(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
        ArrayNode results = McpJson.FACTORY.arrayNode();
        for (JsonNode c : cases) {
            ObjectNode r = results.addObject();
            JsonNode data = c.get("data");
            try {
                if (c.has("method")) {
                    Object v = Mcp.CLIENT_REQUESTS.get(c.get("method").textValue()).decodeResult(data);
                    r.set("ok", ((mcpbinding.McpMessage) v).toJson());
                    r.put("decoded", v.getClass().getSimpleName());
                } else {
                    String type = c.get("type").textValue();
                    r.set("ok", Mcp.encode(type, Mcp.decode(type, data)));
                }
            } catch (DecodeException e) {
                r.put("path", e.getPath());
                r.put("message", e.getReason());
            } catch (EncodeException e) {
                r.put("path", e.getPath());
                r.put("message", "decoded, then refused by the encoder: " + e.getReason());
            }
        }
        Files.writeString(Path.of(args[1]), McpJson.write(results), StandardCharsets.UTF_8);
    }
}
