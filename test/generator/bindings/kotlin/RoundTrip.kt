// Decodes every case of cases.json as its type (or, for a case with a method, as that client
// request's result through the method map) and re-encodes it, checked (see ../own.ts).
// Usage: RoundTrip cases.json results.json. Only the bindings and kotlinx.serialization.
package mcptest.REVISION_ID

import java.io.File
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import mcpbinding.DecodeException
import mcpbinding.EncodeException
import mcpbinding.Mcp

fun roundTrip(case: JsonObject): JsonObject {
    val data = case["data"] ?: throw IllegalArgumentException("case without data")
    return try {
        val method = case["method"]
        if (method != null) {
            val v = Mcp.CLIENT_REQUESTS.getValue(method.jsonPrimitive.content).decodeResult(data)
            JsonObject(mapOf("ok" to v.toJson(), "decoded" to JsonPrimitive(v::class.simpleName)))
        } else {
            val type = case.getValue("type").jsonPrimitive.content
            JsonObject(mapOf("ok" to Mcp.encode(type, Mcp.decode(type, data))))
        }
    } catch (e: DecodeException) {
        JsonObject(mapOf("path" to JsonPrimitive(e.path), "message" to JsonPrimitive(e.reason)))
    } catch (e: EncodeException) {
        JsonObject(
            mapOf(
                "path" to JsonPrimitive(e.path),
                "message" to JsonPrimitive("decoded, then refused by the encoder: " + e.reason),
            ),
        )
    }
}

fun main(args: Array<String>) {
    val cases = Json.parseToJsonElement(File(args[0]).readText()) as JsonArray
    val results: List<JsonElement> = cases.map { roundTrip(it as JsonObject) }
    File(args[1]).writeText(JsonArray(results).toString())
}
