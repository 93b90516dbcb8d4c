"""What the app handed a server (env, header, URL credentials) is masked wherever the server's output is shown."""

from desktop_agent.core.mcp.masking import handed_secrets, mask, secret_parts
from desktop_agent.core.settings import McpServerSettings


def test_each_handed_value_and_its_parts_are_masked():
    parts = secret_parts(["Bearer abcd-1234-efgh", "https://me:s3cr3t-pw@host.example/mcp?key=qwerty-99", "xy", ""])
    assert "abcd-1234-efgh" in parts and "Bearer abcd-1234-efgh" in parts
    assert "s3cr3t-pw" in parts and "qwerty-99" in parts
    assert "xy" not in parts  # too short to mask on its own
    text = "sent Authorization: Bearer abcd-1234-efgh; then abcd-1234-efgh again; password s3cr3t-pw; key qwerty-99"
    masked = mask(text, parts)
    assert "abcd-1234-efgh" not in masked and "s3cr3t-pw" not in masked and "qwerty-99" not in masked
    assert masked.startswith("sent Authorization: ***; then *** again")


def test_the_logs_masking_applies_too():
    assert mask("token ghp_" + "a" * 30 + " used") == "token *** used"
    assert mask("GET http://u:pw@h/x?api_key=zzz") == "GET http://***@h/x?api_key=***"


def test_a_secret_written_in_the_settings_file_is_masked_like_one_in_the_keyring():
    # what `mcp add --secrets-in-file --env API_TOKEN=…` saves: the values in the plain fields
    server = McpServerSettings(
        name="s", command="srv", args=["--password", "hunter2-pw", "plain-arg"],
        env={"API_TOKEN": "supersecret123", "my_session": "sess-abc-42", "LOG_LEVEL": "debug"},
        headers={"X-Auth-Key": "hdr-value-77"})
    parts = handed_secrets(server, ["from-keyring-1"])
    text = ("token supersecret123 session sess-abc-42 pw hunter2-pw header hdr-value-77 kept from-keyring-1 "
            "level debug plain-arg")
    assert mask(text, parts) == "token *** session *** pw *** header *** kept *** level debug plain-arg"
