"""Small MCP servers for tests, written with the official SDK (``python -m tests.mcp_servers.NAME``)."""
