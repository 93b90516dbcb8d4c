"""Model Context Protocol servers' tools, through the official ``mcp`` SDK: :mod:`.manager` runs the servers
and their calls, :mod:`.tools` turns their tools into registry tools, :mod:`.config` reads a Claude-Desktop-style
``{"mcpServers": …}`` file and keeps the servers' secrets in the keyring."""
