// Tools of mcpgen-reference-server 0.1.0, snapshotted by `mcpgen tools`: do not edit.
// `mcpgen tools … --out <this file> --check` fails when the server's tools differ.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The server's tools (`tools/list`), by name. */
export const tools = {
  "batch_job": {
    "description": "Processes a batch of items (20 ms each); runs only as a task (execution.taskSupport \"required\")",
    "inputSchema": {
      "additionalProperties": false,
      "properties": {
        "items": {
          "default": 3,
          "maximum": 1000,
          "minimum": 1,
          "type": "integer"
        }
      },
      "type": "object"
    },
    "name": "batch_job"
  },
  "confirm_job": {
    "description": "Asks the user (elicitation) to confirm an action mid-way, then runs it; as a task it is input_required while asking",
    "inputSchema": {
      "additionalProperties": false,
      "properties": {
        "action": {
          "type": "string"
        }
      },
      "type": "object"
    },
    "name": "confirm_job"
  },
  "echo": {
    "description": "Echoes the text argument",
    "inputSchema": {
      "properties": {
        "text": {
          "type": "string"
        }
      },
      "required": [
        "text"
      ],
      "type": "object"
    },
    "name": "echo"
  },
  "failing_job": {
    "description": "A job that always fails: a JSON-RPC error (mode \"error\", default) or a tool result with isError (mode \"tool_error\")",
    "inputSchema": {
      "additionalProperties": false,
      "properties": {
        "mode": {
          "enum": [
            "error",
            "tool_error"
          ],
          "type": "string"
        },
        "reason": {
          "type": "string"
        }
      },
      "type": "object"
    },
    "name": "failing_job"
  },
  "json_schema_2020_12_tool": {
    "description": "Tool with JSON Schema 2020-12 features",
    "inputSchema": {
      "$defs": {
        "address": {
          "properties": {
            "city": {
              "type": "string"
            },
            "street": {
              "type": "string"
            }
          },
          "type": "object"
        }
      },
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "additionalProperties": false,
      "properties": {
        "address": {
          "$ref": "#/$defs/address"
        },
        "name": {
          "type": "string"
        }
      },
      "type": "object"
    },
    "name": "json_schema_2020_12_tool"
  },
  "slow_compute": {
    "description": "Slow computation: sums 1..n in ten steps spread over `seconds`, with progress; may run as a task and be cancelled",
    "inputSchema": {
      "additionalProperties": false,
      "properties": {
        "seconds": {
          "default": 5,
          "maximum": 60,
          "minimum": 0,
          "type": "number"
        }
      },
      "type": "object"
    },
    "name": "slow_compute",
    "outputSchema": {
      "properties": {
        "n": {
          "type": "integer"
        },
        "seconds": {
          "type": "number"
        },
        "steps": {
          "type": "integer"
        },
        "sum": {
          "type": "integer"
        }
      },
      "required": [
        "seconds",
        "steps",
        "n",
        "sum"
      ],
      "type": "object"
    }
  },
  "test_audio_content": {
    "description": "Returns audio",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_audio_content"
  },
  "test_elicitation": {
    "description": "Asks the user for a username and an email through elicitation",
    "inputSchema": {
      "properties": {
        "message": {
          "type": "string"
        }
      },
      "required": [
        "message"
      ],
      "type": "object"
    },
    "name": "test_elicitation"
  },
  "test_elicitation_sep1034_defaults": {
    "description": "Elicitation whose fields carry default values (SEP-1034)",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_elicitation_sep1034_defaults"
  },
  "test_elicitation_sep1330_enums": {
    "description": "Elicitation with every enum schema form (SEP-1330)",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_elicitation_sep1330_enums"
  },
  "test_embedded_resource": {
    "description": "Returns an embedded resource",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_embedded_resource"
  },
  "test_error_handling": {
    "description": "Always fails with a tool execution error",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_error_handling"
  },
  "test_image_content": {
    "description": "Returns an image",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_image_content"
  },
  "test_multiple_content_types": {
    "description": "Returns text, an image and an embedded resource",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_multiple_content_types"
  },
  "test_reconnection": {
    "description": "Closes the SSE connection of its own request mid-call; the result arrives after the client resumes",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_reconnection"
  },
  "test_sampling": {
    "description": "Asks the client to sample an LLM with the prompt argument",
    "inputSchema": {
      "properties": {
        "prompt": {
          "type": "string"
        }
      },
      "required": [
        "prompt"
      ],
      "type": "object"
    },
    "name": "test_sampling"
  },
  "test_simple_text": {
    "description": "Returns a simple text response",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_simple_text"
  },
  "test_tool_with_logging": {
    "description": "Sends three log messages (info) on behalf of its request while running",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_tool_with_logging"
  },
  "test_tool_with_progress": {
    "description": "Reports progress 0, 50, 100 of 100, then returns",
    "inputSchema": {
      "type": "object"
    },
    "name": "test_tool_with_progress"
  }
} as const;

type Tools = typeof tools;
/** What a schema describes, a property with a `default` optional: a caller may leave it out, and a result need not carry it. */
type Typed<S, Fallback> = S extends JSONSchema ? (unknown extends FromSchema<S> ? Fallback : FromSchema<S, { keepDefaultedPropertiesOptional: true }>) : Fallback;

/** The tool names. */
export type ToolName = keyof Tools & string;
/** Each tool's arguments, from its `inputSchema`. */
export type ToolArguments = { [N in ToolName]: Tools[N] extends { inputSchema: infer S } ? Typed<S, Record<string, unknown>> : Record<string, unknown> };
/** Each tool's `structuredContent`, from its `outputSchema` (`unknown` without one). */
export type ToolStructuredContent = { [N in ToolName]: Tools[N] extends { outputSchema: infer S } ? Typed<S, unknown> : unknown };

/** What `typedTools` needs of a client: a generated `Client`'s `callTool`. */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: never): Promise<{ structuredContent?: unknown }>;
}
type Options<C extends ToolCaller> = Parameters<C['callTool']>[1];
type Result<C extends ToolCaller, N extends ToolName> = Omit<Awaited<ReturnType<C['callTool']>>, 'structuredContent'> & { structuredContent?: ToolStructuredContent[N] };

/** `client` with `callTool(name, args, options?)` typed per tool of this snapshot. */
export function typedTools<C extends ToolCaller>(client: C): {
  callTool<N extends ToolName>(name: N, args: ToolArguments[N], options?: Options<C>): Promise<Result<C, N>>;
} {
  return {
    callTool: (name, args, options) => client.callTool({ name, arguments: args as Record<string, unknown> }, options as never) as never,
  };
}
