// kotlinx.serialization reads and writes the messages through their serializers (the validating
// decoder and the checked encoder): a server-everything tools/list result, decoded with
// Json.decodeFromString and written back with Json.encodeToString; a refusal naming the path;
// the encoder refusing what the decoder refuses; an explicit null kept. Prints one JSON object.
// Usage: Features tools-list.json (a JSON-RPC response). Written against 2025-11-25.
package mcptest.REVISION_ID

import java.io.File
import kotlinx.serialization.SerializationException
import kotlinx.serialization.encodeToString
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import mcpbinding.Annotations
import mcpbinding.CallToolResult
import mcpbinding.EncodeException
import mcpbinding.ListToolsResult
import mcpbinding.SetLevelRequestParams
import mcpbinding.TextContent

fun refusal(make: () -> Unit): String =
    try {
        make()
        "accepted"
    } catch (e: EncodeException) {
        e.path + ": " + e.reason
    }

fun main(args: Array<String>) {
    val response = Json.parseToJsonElement(File(args[0]).readText()).jsonObject
    val resultText = response.getValue("result").toString()
    val tools = Json.decodeFromString<ListToolsResult>(resultText)
    val written = Json.encodeToString(tools)
    val bad = resultText.replaceFirst("\"type\":\"object\"", "\"type\":\"array\"")
    val readRefusal =
        try {
            Json.decodeFromString<ListToolsResult>(bad)
            "accepted"
        } catch (e: SerializationException) {
            e.message ?: ""
        }
    val refusals =
        listOf(
            refusal { CallToolResult(content = listOf(TextContent(text = "a", annotations = Annotations(priority = 2.0)))).toJson() },
            refusal { SetLevelRequestParams(level = "verbose").toJson() },
        )
    val explicitNull = mcpbinding.Error(code = -32000, message = "failed", data = JsonNull).toJson()
    val out: Map<String, JsonElement> =
        mapOf(
            "tools" to JsonArray(tools.tools.map { JsonPrimitive(it.name) }),
            "written" to JsonPrimitive(written),
            "readRefusal" to JsonPrimitive(readRefusal),
            "encodeRefusals" to JsonArray(refusals.map { JsonPrimitive(it) }),
            "explicitNull" to explicitNull,
        )
    println(JsonObject(out))
}
