// Decodes every case of cases.json as its type (a case with a method: as that client request's
// result, through the method map) and re-encodes it, checked (see ../own.ts).
// Usage: RoundTrip.exe cases.json results.json. Only the bindings and Newtonsoft.Json.
using System.IO;
using System.Text;
using Newtonsoft.Json.Linq;
using mcpbinding;

public static class RoundTrip
{
    public static void Main(string[] args)
    {
        var cases = (JArray)McpJson.Parse(File.ReadAllText(args[0], Encoding.UTF8));
        var results = new JArray();
        foreach (var c in cases)
        {
            var r = new JObject();
            results.Add(r);
            var data = c["data"];
            try
            {
                if (c["method"] != null)
                {
                    var v = Mcp.ClientRequests[(string)c["method"]].DecodeResult(data);
                    r["ok"] = v.ToJson();
                    r["decoded"] = v.GetType().Name;
                }
                else
                {
                    var type = (string)c["type"];
                    r["ok"] = Mcp.Encode(type, Mcp.Decode(type, data));
                }
            }
            catch (DecodeException e)
            {
                r["path"] = e.Path;
                r["message"] = e.Reason;
            }
            catch (EncodeException e)
            {
                r["path"] = e.Path;
                r["message"] = "decoded, then refused by the encoder: " + e.Reason;
            }
        }
        File.WriteAllText(args[1], McpJson.Write(results), new UTF8Encoding(false));
    }
}
