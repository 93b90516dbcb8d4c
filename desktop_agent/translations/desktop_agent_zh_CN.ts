<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AppearancePage</name>
    <message>
        <source>&amp;Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>`DESKTOP_AGENT_THEME` is set ({value}): it wins over this choice while it is set.</source>
        <translation>已设置 `DESKTOP_AGENT_THEME`({value}):在它被设置期间,它优先于此处的选择。</translation>
    </message>
    <message>
        <source>Theme: {name}</source>
        <translation>主题:{name}</translation>
    </message>
    <message>
        <source>Theme override note</source>
        <translation>主题覆盖说明</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>主题:</translation>
    </message>
    <message>
        <source>applied as soon as you save</source>
        <translation>保存后立即生效</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Language note</source>
        <translation>语言说明</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L):</translation>
    </message>
    <message>
        <source>applies the next time the app starts</source>
        <translation>下次启动应用时生效</translation>
    </message>
    <message>
        <source>Restart the app to see it in the language chosen.</source>
        <translation>重新启动应用后将以所选语言显示。</translation>
    </message>
</context>
<context>
    <name>Application</name>
    <message>
        <source>no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Start it from a desktop session, or chat in the terminal with `desktop-agent chat`.</source>
        <translation>未找到显示器(DISPLAY 和 WAYLAND_DISPLAY 均未设置)。请在桌面会话中启动,或用 `desktop-agent chat` 在终端中对话。</translation>
    </message>
</context>
<context>
    <name>Approval</name>
    <message>
        <source>Allowed once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error message</source>
        <translation type="unfinished">错误信息</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation type="unfinished">进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished">取消</translation>
    </message>
    <message>
        <source>This error is from an earlier message; the chat has moved on.</source>
        <translation type="unfinished">此错误来自较早的消息;对话已继续进行。</translation>
    </message>
</context>
<context>
    <name>ChatOptions</name>
    <message>
        <source>Model default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools</source>
        <translation type="unfinished">默认</translation>
    </message>
    <message>
        <source>Think: {short}</source>
        <translation>思考:{short}</translation>
    </message>
    <message>
        <source>Think: {choice}</source>
        <translation>思考:{choice}</translation>
    </message>
    <message>
        <source>next: {name} ×</source>
        <translation>下一条:{name} ×</translation>
    </message>
    <message>
        <source>The next message must use the tool {name} (what --tool-choice {name} does in the terminal); later messages let the model choose again. Click to let it choose now.</source>
        <translation>下一条消息必须使用工具 {name}(即终端中 --tool-choice {name} 的效果);之后的消息再由模型自行选择。点击可立即交由模型选择。</translation>
    </message>
    <message>
        <source>Next message uses {name}; press to let the model choose</source>
        <translation>下一条消息使用 {name};按下可交由模型选择</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source> ({count} left out)</source>
        <translation>(未选 {count} 个)</translation>
    </message>
    <message>
        <source> left out</source>
        <translation> 未选</translation>
    </message>
    <message>
        <source>all tools</source>
        <translation>全部工具</translation>
    </message>
    <message>
        <source>Temperature of the answers in this chat: 0 = focused, higher = more varied</source>
        <translation>本对话中回答的温度:0 = 专注,越高 = 越多样</translation>
    </message>
    <message>
        <source> — Ollama only; the OpenAI-compatible backend does not use it</source>
        <translation> — 仅限 Ollama;OpenAI 兼容后端不使用它</translation>
    </message>
    <message>
        <source>Whether the model thinks before it answers (models that can)</source>
        <translation>模型是否在回答前思考(仅限支持的模型)</translation>
    </message>
    <message>
        <source>Ask the model to answer in JSON (Ollama&apos;s format: json)</source>
        <translation>要求模型用 JSON 回答(Ollama 的 format: json)</translation>
    </message>
    <message>
        <source>Tools: off for {model}</source>
        <translation>工具:{model} 已关闭</translation>
    </message>
    <message>
        <source>Tools: off</source>
        <translation>工具:关闭</translation>
    </message>
    <message>
        <source>Tools: off for {short_model}</source>
        <translation>工具:{short_model} 已关闭</translation>
    </message>
    <message>
        <source>Tools are off in this chat</source>
        <translation>本对话中工具已关闭</translation>
    </message>
    <message>
        <source>Tools are off for {model}: {tools_off}, so this chat&apos;s messages go without them.
The Tools menu&apos;s Offer tools anyway offers them all the same; Settings → Tools → Learned forgets what was learned.</source>
        <translation>{model} 的工具已关闭:{tools_off},因此本对话的消息不带工具发送。
“工具”菜单中的“仍然提供工具”可照常提供;设置 → 工具 → 已学习 可忘记所学内容。</translation>
    </message>
    <message>
        <source>Offer tools to the model in this chat — offered anyway, although {reason}</source>
        <translation>在本对话中向模型提供工具 — 仍然提供,尽管{reason}</translation>
    </message>
    <message>
        <source>Offer tools to the model in this chat</source>
        <translation>在本对话中向模型提供工具</translation>
    </message>
    <message>
        <source>{tip}
This chat only; Settings say {default}.</source>
        <translation>{tip}
仅限本对话;设置中为 {default}。</translation>
    </message>
    <message>
        <source>{tip}
The default from Settings ({default}).</source>
        <translation>{tip}
来自设置的默认值({default})。</translation>
    </message>
    <message>
        <source>Offer tools anyway</source>
        <translation>仍然提供工具</translation>
    </message>
    <message>
        <source>Could not list the tools: {tools_error}</source>
        <translation>无法列出工具:{tools_error}</translation>
    </message>
    <message>
        <source>Listing the tools…</source>
        <translation>正在列出工具…</translation>
    </message>
    <message>
        <source>Tools this chat offers</source>
        <translation>本对话提供的工具</translation>
    </message>
    <message>
        <source>Offer all tools</source>
        <translation>提供全部工具</translation>
    </message>
    <message>
        <source>Use this tool for the next message</source>
        <translation>下一条消息使用此工具</translation>
    </message>
    <message>
        <source>What --tool-choice NAME does in the terminal, for one message</source>
        <translation>即终端中 --tool-choice NAME 的效果,仅限一条消息</translation>
    </message>
    <message>
        <source>The model chooses</source>
        <translation>由模型选择</translation>
    </message>
    <message>
        <source>Offered to {model} in every chat (the model picker&apos;s Offer tools anyway)</source>
        <translation>在每个对话中都向 {model} 提供(模型选择器中的“仍然提供工具”)</translation>
    </message>
    <message>
        <source>Offer the tools in this chat although {reason}</source>
        <translation>在本对话中提供工具,尽管{reason}</translation>
    </message>
    <message>
        <source>Offer the tools in this chat whatever the model&apos;s server says or the app learned</source>
        <translation>无论模型服务器怎么说或应用学到了什么,都在本对话中提供工具</translation>
    </message>
</context>
<context>
    <name>Common</name>
    <message>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message>
        <source>%n minute ago</source>
        <translation>%n 分钟前</translation>
    </message>
    <message>
        <source>%n minutes ago</source>
        <translation>%n 分钟前</translation>
    </message>
    <message>
        <source>%n hour ago</source>
        <translation>%n 小时前</translation>
    </message>
    <message>
        <source>%n hours ago</source>
        <translation>%n 小时前</translation>
    </message>
    <message>
        <source>%n day ago</source>
        <translation>%n 天前</translation>
    </message>
    <message>
        <source>%n days ago</source>
        <translation>%n 天前</translation>
    </message>
    <message>
        <source>Must be</source>
        <translation>必须是</translation>
    </message>
    <message>
        <source>Must be a number of seconds, e.g. {example}</source>
        <translation>必须是秒数,例如 {example}</translation>
    </message>
    <message>
        <source>Using {url}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message the assistant…  (Shift+Enter: new line)</source>
        <translation type="unfinished">给助手发消息…  (Shift+Enter:换行)</translation>
    </message>
    <message>
        <source>Enter sends; Shift+Enter adds a line; Esc stops an answer</source>
        <translation type="unfinished">Enter 发送;Shift+Enter 换行;Esc 停止回答</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished">停止</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation type="unfinished">停止回答(Esc)</translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished">发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation type="unfinished">发送(Enter)</translation>
    </message>
    <message>
        <source>An answer is being written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pulled {model}.</source>
        <translation type="unfinished">已拉取 {model}。</translation>
    </message>
    <message>
        <source>Pull failed: {text}</source>
        <translation type="unfinished">拉取失败:{text}</translation>
    </message>
    <message>
        <source>Stopped pulling {name}.</source>
        <translation type="unfinished">已停止拉取 {name}。</translation>
    </message>
    <message>
        <source>Pulling {name}…</source>
        <translation type="unfinished">正在拉取 {name}…</translation>
    </message>
</context>
<context>
    <name>Decision</name>
    <message>
        <source>allowed by user</source>
        <translation>由用户允许</translation>
    </message>
    <message>
        <source>denied by user</source>
        <translation>由用户拒绝</translation>
    </message>
    <message>
        <source>allowed by default</source>
        <translation>默认允许</translation>
    </message>
    <message>
        <source>denied by default</source>
        <translation>默认拒绝</translation>
    </message>
    <message>
        <source>once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished">助手</translation>
    </message>
    <message>
        <source>Tool result</source>
        <translation type="unfinished">工具结果</translation>
    </message>
    <message>
        <source>Title</source>
        <translation type="unfinished">标题</translation>
    </message>
    <message>
        <source>%n msg</source>
        <comment>a short count of messages</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Provider:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What&apos;s the weather in Paris right now?</source>
        <translation type="unfinished">巴黎现在的天气怎么样?</translation>
    </message>
    <message>
        <source>What is 17.5% of 2,340?</source>
        <translation type="unfinished">2,340 的 17.5% 是多少?</translation>
    </message>
    <message>
        <source>Explain Python&apos;s GIL in three bullet points</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry</source>
        <translation type="unfinished">重试</translation>
    </message>
    <message>
        <source>Open settings</source>
        <translation type="unfinished">打开设置</translation>
    </message>
    <message>
        <source>Can&apos;t reach Ollama</source>
        <translation type="unfinished">无法连接 Ollama</translation>
    </message>
    <message>
        <source>Can&apos;t reach the server</source>
        <translation type="unfinished">无法连接服务器</translation>
    </message>
    <message>
        <source>Model &apos;{model}&apos; is not installed</source>
        <translation type="unfinished">模型“{model}”未安装</translation>
    </message>
    <message>
        <source>Pull {model}</source>
        <translation type="unfinished">拉取 {model}</translation>
    </message>
    <message>
        <source>Model &apos;{model}&apos; is not available</source>
        <translation type="unfinished">模型“{model}”不可用</translation>
    </message>
    <message>
        <source>Use {name}</source>
        <translation type="unfinished">使用 {name}</translation>
    </message>
    <message>
        <source>Server not reachable</source>
        <translation type="unfinished">对话选项</translation>
    </message>
    <message>
        <source>On</source>
        <translation type="unfinished">开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished">关</translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished">模型</translation>
    </message>
    <message>
        <source>Model error</source>
        <translation type="unfinished">模型错误</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation type="unfinished">模型(&amp;M):</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished">温度</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation type="unfinished">温度(&amp;T):</translation>
    </message>
    <message>
        <source>Keep alive (Ollama)</source>
        <translation type="unfinished">保持加载(Ollama)</translation>
    </message>
    <message>
        <source>How long Ollama keeps the model loaded after a reply: seconds (-1 = always, 0 = unload at once) or a duration such as 5m or 1h</source>
        <translation type="unfinished">回复后 Ollama 保持模型加载的时长:秒数(-1 = 一直,0 = 立即卸载)或 5m、1h 这样的时长</translation>
    </message>
    <message>
        <source>Keep alive error</source>
        <translation type="unfinished">保持加载错误</translation>
    </message>
    <message>
        <source>seconds (-1 = keep loaded, 0 = unload at once) or a duration like 5m</source>
        <translation type="unfinished">秒数(-1 = 保持加载,0 = 立即卸载)或 5m 这样的时长</translation>
    </message>
    <message>
        <source>&amp;Keep alive (Ollama):</source>
        <translation type="unfinished">保持加载(Ollama)(&amp;K):</translation>
    </message>
    <message>
        <source>Ask for &amp;JSON</source>
        <translation type="unfinished">要求 &amp;JSON</translation>
    </message>
    <message>
        <source>JSON output (Ollama format)</source>
        <translation type="unfinished">JSON 输出(Ollama format)</translation>
    </message>
    <message>
        <source>Ollama&apos;s `format` set to `&quot;json&quot;`: every reply is one JSON object.</source>
        <translation type="unfinished">Ollama 的 `format` 设为 `&quot;json&quot;`:每个回复都是一个 JSON 对象。</translation>
    </message>
    <message>
        <source>JSON output (Ollama):</source>
        <translation type="unfinished">JSON 输出(Ollama):</translation>
    </message>
    <message>
        <source>Think (Ollama)</source>
        <translation type="unfinished">思考(Ollama)</translation>
    </message>
    <message>
        <source>Ollama&apos;s `think`: whether a reasoning model thinks before it answers.</source>
        <translation type="unfinished">Ollama 的 `think`:推理模型是否在回答前思考。</translation>
    </message>
    <message>
        <source>Th&amp;ink (Ollama):</source>
        <translation type="unfinished">思考(Ollama)(&amp;I):</translation>
    </message>
    <message>
        <source>Largest context window (Ollama)</source>
        <translation type="unfinished">最大上下文窗口(Ollama)</translation>
    </message>
    <message>
        <source>Ollama is asked for the model&apos;s own window up to this size (`num_ctx`); a larger window needs more memory.</source>
        <translation type="unfinished">向 Ollama 请求模型自身的窗口,最大到此大小(`num_ctx`);窗口越大,所需内存越多。</translation>
    </message>
    <message>
        <source>Largest conte&amp;xt window (Ollama):</source>
        <translation type="unfinished">最大上下文窗口(Ollama)(&amp;X):</translation>
    </message>
    <message>
        <source>Context window when the server does not say</source>
        <translation type="unfinished">服务器未告知时的上下文窗口</translation>
    </message>
    <message>
        <source>For servers that do not report a model&apos;s window (most OpenAI-compatible ones).</source>
        <translation type="unfinished">用于不报告模型窗口大小的服务器(多数 OpenAI 兼容服务器)。</translation>
    </message>
    <message>
        <source>Context window if &amp;unknown:</source>
        <translation type="unfinished">未知时的上下文窗口(&amp;U):</translation>
    </message>
    <message>
        <source>Summarise earlier messages when a chat outgrows the window</source>
        <translation type="unfinished">对话超出窗口时总结较早的消息</translation>
    </message>
    <message>
        <source>Summarise long chats automatically</source>
        <translation type="unfinished">自动总结长对话</translation>
    </message>
    <message>
        <source>Long chats:</source>
        <translation type="unfinished">长对话:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished">不限制</translation>
    </message>
    <message>
        <source>Maximum history messages sent to the model</source>
        <translation type="unfinished">发送给模型的最多历史消息数</translation>
    </message>
    <message>
        <source>The context window decides what is sent; this caps the count too.</source>
        <translation type="unfinished">发送哪些内容由上下文窗口决定;此项同时限制数量。</translation>
    </message>
    <message>
        <source>Max &amp;history messages:</source>
        <translation type="unfinished">最多历史消息数(&amp;H):</translation>
    </message>
    <message>
        <source>Maximum agent steps per turn</source>
        <translation type="unfinished">每轮最多代理步骤数</translation>
    </message>
    <message>
        <source>Max &amp;steps per turn:</source>
        <translation type="unfinished">每轮最多步骤数(&amp;S):</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished">系统提示词</translation>
    </message>
    <message>
        <source>S&amp;ystem prompt:</source>
        <translation type="unfinished">系统提示词(&amp;Y):</translation>
    </message>
    <message>
        <source>Keep alive (Generation tab)</source>
        <translation type="unfinished">保持加载(生成页)</translation>
    </message>
    <message>
        <source>Model (Generation tab)</source>
        <translation type="unfinished">模型(生成页)</translation>
    </message>
    <message>
        <source>Enter or choose a model</source>
        <translation type="unfinished">输入或选择模型</translation>
    </message>
</context>
<context>
    <name>KeysEditor</name>
    <message>
        <source>API keys (masked)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add {what}</source>
        <translation type="unfinished">添加{what}</translation>
    </message>
    <message>
        <source>Add an {what}</source>
        <translation type="unfinished">添加{what}</translation>
    </message>
    <message>
        <source>Add a {what}</source>
        <translation type="unfinished">添加{what}</translation>
    </message>
    <message>
        <source>{what} {index} name</source>
        <translation type="unfinished">{what} {index} 名称</translation>
    </message>
    <message>
        <source>{what} {index} value</source>
        <translation type="unfinished">{what} {index} 值</translation>
    </message>
    <message>
        <source>Secret</source>
        <translation type="unfinished">机密</translation>
    </message>
    <message>
        <source>Keep the value in the system keyring, not in the settings file</source>
        <translation type="unfinished">将值保存在系统密钥环中,而不是设置文件中</translation>
    </message>
    <message>
        <source>{what} {index} is a secret</source>
        <translation type="unfinished">{what} {index} 是机密</translation>
    </message>
    <message>
        <source>Remove this {what}</source>
        <translation type="unfinished">移除此{what}</translation>
    </message>
    <message>
        <source>Remove {what} {index}</source>
        <translation type="unfinished">移除{what} {index}</translation>
    </message>
    <message>
        <source>set — type a new value to replace it</source>
        <translation type="unfinished">已设置 — 输入新值以替换</translation>
    </message>
    <message>
        <source>not set</source>
        <translation type="unfinished">未设置</translation>
    </message>
</context>
<context>
    <name>LearnedBox</name>
    <message>
        <source>OpenAI-compatible</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What was learned about servers and models</source>
        <translation>关于服务器和模型所学到的内容</translation>
    </message>
    <message>
        <source>Nothing learned: every model is offered tools, streamed.</source>
        <translation>尚未学到任何内容:每个模型都以流式方式获得工具。</translation>
    </message>
    <message>
        <source>Nothing learned</source>
        <translation>尚未学到任何内容</translation>
    </message>
    <message>
        <source>Forget &amp;all</source>
        <translation>全部忘记(&amp;A)</translation>
    </message>
    <message>
        <source>Forget everything learned about servers and models</source>
        <translation>忘记关于服务器和模型学到的一切</translation>
    </message>
    <message>
        <source>{model} at {where}</source>
        <translation>{where} 上的 {model}</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>忘记</translation>
    </message>
    <message>
        <source>Forget what was learned about {model} at {url}</source>
        <translation>忘记关于 {url} 上 {model} 所学到的内容</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Tool activity</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Markdown</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copied ✓</source>
        <translation>已复制 ✓</translation>
    </message>
</context>
<context>
    <name>McpPage</name>
    <message>
        <source>&amp;Use MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Models</name>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation>过去 7 天</translation>
    </message>
    <message>
        <source>Older</source>
        <translation>更早</translation>
    </message>
    <message>
        <source>d MMM yyyy</source>
        <comment>a short date (QDateTime format)</comment>
        <translation>yyyy年M月d日</translation>
    </message>
    <message>
        <source>%n message</source>
        <translation>%n 条消息</translation>
    </message>
    <message>
        <source>%n messages</source>
        <translation>%n 条消息</translation>
    </message>
    <message>
        <source>{title}
{model} · {n} · last message {when}</source>
        <translation>{title}
{model} · {n} · 最后一条消息 {when}</translation>
    </message>
</context>
<context>
    <name>ModelsBox</name>
    <message>
        <source>Installed models</source>
        <translation>已安装的模型</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Installed Ollama models</source>
        <translation>已安装的 Ollama 模型</translation>
    </message>
    <message>
        <source>&amp;Use for chats</source>
        <translation>用于对话(&amp;U)</translation>
    </message>
    <message>
        <source>Use the selected model for chats</source>
        <translation>将所选模型用于对话</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Delete the selected model</source>
        <translation>删除所选模型</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Refresh the list of installed models</source>
        <translation>刷新已安装模型的列表</translation>
    </message>
    <message>
        <source>{size:,} bytes</source>
        <translation>{size:,} 字节</translation>
    </message>
</context>
<context>
    <name>OllamaPage</name>
    <message>
        <source>Ollama host URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search all chats</source>
        <translation type="unfinished">搜索全部对话</translation>
    </message>
    <message>
        <source>Search all chats…</source>
        <translation type="unfinished">搜索全部对话…</translation>
    </message>
    <message>
        <source>Full-text search over every message and chat title. Enter opens the chat at the first result.</source>
        <translation type="unfinished">对所有消息和对话标题进行全文搜索。按 Enter 打开第一个结果所在的对话。</translation>
    </message>
    <message>
        <source>Saved chats</source>
        <translation type="unfinished">已保存的对话</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation type="unfinished">搜索结果</translation>
    </message>
    <message>
        <source>No saved chats yet.
Your chats appear here as you talk.</source>
        <translation type="unfinished">还没有已保存的对话。
你的对话会在交谈时出现在这里。</translation>
    </message>
    <message>
        <source>Search result count</source>
        <translation type="unfinished">搜索结果数</translation>
    </message>
    <message>
        <source>History problem</source>
        <translation type="unfinished">历史记录问题</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished">打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Rename…</source>
        <translation type="unfinished">重命名(&amp;R)…</translation>
    </message>
    <message>
        <source>Export as &amp;Markdown…</source>
        <translation type="unfinished">导出为 &amp;Markdown…</translation>
    </message>
    <message>
        <source>Export as &amp;JSON…</source>
        <translation type="unfinished">导出为 &amp;JSON…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished">删除(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Import chat…</source>
        <translation type="unfinished">导入对话(&amp;I)…</translation>
    </message>
    <message>
        <source>Import a chat from a JSON file (a desktop-agent export or a seed chat_*.json)</source>
        <translation type="unfinished">从 JSON 文件导入对话(desktop-agent 导出的文件或 chat_*.json 种子文件)</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation type="unfinished">导入…</translation>
    </message>
    <message>
        <source>Import chat</source>
        <translation type="unfinished">导入对话</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation type="unfinished">对话</translation>
    </message>
    <message>
        <source>Selected chat actions</source>
        <translation type="unfinished">所选对话的操作</translation>
    </message>
    <message>
        <source>Rename, export or delete the selected chat</source>
        <translation type="unfinished">重命名、导出或删除所选对话</translation>
    </message>
    <message>
        <source>Could not write {path}: {strerror}.</source>
        <translation type="unfinished">无法写入 {path}:{strerror}。</translation>
    </message>
    <message>
        <source>{count} chat</source>
        <translation type="unfinished">{count} 个对话</translation>
    </message>
    <message>
        <source>{count} chats</source>
        <translation type="unfinished">{count} 个对话</translation>
    </message>
    <message>
        <source>No message contains “{text}”.</source>
        <translation type="unfinished">没有消息包含“{text}”。</translation>
    </message>
</context>
<context>
    <name>Parts</name>
    <message>
        <source>Shown as plain text (too large to format).</source>
        <translation type="unfinished">助手</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>replaces {target} (not shown: not a small text file)</source>
        <translation type="unfinished">替换 {target}(未显示:不是小型文本文件)</translation>
    </message>
    <message>
        <source>new file {target}</source>
        <translation type="unfinished">新文件 {target}</translation>
    </message>
</context>
<context>
    <name>PullBox</name>
    <message>
        <source>Pull a model</source>
        <translation>拉取模型</translation>
    </message>
    <message>
        <source>Model name, e.g. llama3.2 or qwen3:8b</source>
        <translation>模型名称,例如 llama3.2 或 qwen3:8b</translation>
    </message>
    <message>
        <source>Name of the model to pull</source>
        <translation>要拉取的模型名称</translation>
    </message>
    <message>
        <source>&amp;Pull</source>
        <translation>拉取(&amp;P)</translation>
    </message>
    <message>
        <source>Pull the model</source>
        <translation>拉取该模型</translation>
    </message>
    <message>
        <source>Cancel pull</source>
        <translation>取消拉取</translation>
    </message>
    <message>
        <source>Cancel the pull</source>
        <translation>取消拉取</translation>
    </message>
    <message>
        <source>Pull progress</source>
        <translation>拉取进度</translation>
    </message>
    <message>
        <source>Pull status</source>
        <translation>拉取状态</translation>
    </message>
    <message>
        <source>Enter a valid Ollama host first.</source>
        <translation>请先输入有效的 Ollama 主机。</translation>
    </message>
    <message>
        <source>Another pull is running ({model}); try again when it is done.</source>
        <translation>另一个拉取正在进行({model});请在其完成后重试。</translation>
    </message>
    <message>
        <source>Pulling {name}…</source>
        <translation>正在拉取 {name}…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Pulled {name}.</source>
        <translation>已拉取 {name}。</translation>
    </message>
    <message>
        <source> — {done} of {total}</source>
        <translation> — {done} / {total}</translation>
    </message>
    <message>
        <source>Pull of {name} cancelled. Ollama keeps what was downloaded and resumes next time.</source>
        <translation>已取消拉取 {name}。Ollama 会保留已下载的部分,下次继续。</translation>
    </message>
</context>
<context>
    <name>RulesBox</name>
    <message>
        <source>you</source>
        <translation>你</translation>
    </message>
    <message>
        <source>--allow-tool (this run)</source>
        <translation>--allow-tool(本次运行)</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking the server…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool</source>
        <translation type="unfinished">工具</translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished">来源</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished">类型</translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished">说明</translation>
    </message>
    <message>
        <source>Tools summary</source>
        <translation type="unfinished">工具摘要</translation>
    </message>
    <message>
        <source>Re&amp;load tools</source>
        <translation type="unfinished">重新加载工具(&amp;L)</translation>
    </message>
    <message>
        <source>Reload the tools from their files</source>
        <translation type="unfinished">从文件重新加载工具</translation>
    </message>
    <message>
        <source>Load the tool files again, without restarting: new and changed files count from the next message on</source>
        <translation type="unfinished">无需重启即可重新加载工具文件:新增和更改的文件从下一条消息起生效</translation>
    </message>
    <message>
        <source>Tools status</source>
        <translation type="unfinished">工具状态</translation>
    </message>
    <message>
        <source>Listing the tools…</source>
        <translation type="unfinished">正在列出工具…</translation>
    </message>
    <message>
        <source>Reloading the tools…</source>
        <translation type="unfinished">正在重新加载工具…</translation>
    </message>
    <message>
        <source>The tools could not be listed: {error}</source>
        <translation type="unfinished">无法列出工具:{error}</translation>
    </message>
    <message>
        <source>%n tool</source>
        <translation type="unfinished">%n 个工具</translation>
    </message>
    <message>
        <source>%n tools</source>
        <translation type="unfinished">%n 个工具</translation>
    </message>
    <message>
        <source>{count} reloaded.</source>
        <translation type="unfinished">已重新加载 {count}。</translation>
    </message>
    <message>
        <source>{count}.</source>
        <translation type="unfinished">{count}。</translation>
    </message>
    <message>
        <source>Some tool files could not be loaded (the details are in the log); the other tools work:
{shown}</source>
        <translation type="unfinished">部分工具文件无法加载(详细信息在日志中);其他工具正常:
{shown}</translation>
    </message>
    <message>
        <source>{name}, from {source}</source>
        <translation type="unfinished">{name},来源:{source}</translation>
    </message>
    <message>
        <source>(no description)</source>
        <translation type="unfinished">(无说明)</translation>
    </message>
</context>
<context>
    <name>ToolSidebar</name>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} 毫秒</translation>
    </message>
    <message>
        <source>Tool activity</source>
        <translation>工具活动</translation>
    </message>
    <message>
        <source>No tool calls yet.

When the assistant uses a tool, the call shows up here with its arguments, result and duration.</source>
        <translation>还没有工具调用。

助手使用工具时,调用会连同参数、结果和耗时显示在这里。</translation>
    </message>
    <message>
        <source>Tools offered to the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>已超时</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Cancel {name}</source>
        <translation>取消 {name}</translation>
    </message>
    <message>
        <source>From: {source}</source>
        <translation>来源:{source}</translation>
    </message>
    <message>
        <source>Permission: {decision}</source>
        <translation>权限:{decision}</translation>
    </message>
    <message>
        <source>{name} is running…</source>
        <translation>{name} 正在运行…</translation>
    </message>
    <message>
        <source>Error ({status})</source>
        <translation>错误({status})</translation>
    </message>
    <message>
        <source>{result_full}

── printed by the tool ──
{output}</source>
        <translation>{result_full}

── 工具打印的内容 ──
{output}</translation>
    </message>
    <message>
        <source>The result or error appears here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot be shown here</source>
        <translation>无法在此显示</translation>
    </message>
    <message>
        <source>{mime_type}, {size:,} bytes</source>
        <translation>{mime_type},{size:,} 字节</translation>
    </message>
    <message>
        <source>Image of the result ({mime_type})</source>
        <translation>结果中的图像({mime_type})</translation>
    </message>
    <message>
        <source>{width} × {height} pixels, too large to show here</source>
        <translation>{width} × {height} 像素,太大无法在此显示</translation>
    </message>
</context>
<context>
    <name>ToolSource</name>
    <message>
        <source>shipped</source>
        <comment>a tool that comes with the app</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation type="unfinished">对话(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished">视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished">帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>ToolsOffered</name>
    <message>
        <source>the tools called in this turn</source>
        <translation>没有与消息相关的工具</translation>
    </message>
    <message>
        <source>it answered nothing when offered them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no tool fits the message</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <source>Tools sections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>message</source>
        <translation type="unfinished">消息</translation>
    </message>
    <message>
        <source>Assistant message</source>
        <translation type="unfinished">助手</translation>
    </message>
    <message>
        <source>answer</source>
        <translation type="unfinished">回答</translation>
    </message>
    <message>
        <source>The assistant is answering</source>
        <translation type="unfinished">助手正在回答</translation>
    </message>
</context>
<context>
    <name>View</name>
    <message>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show earlier messages</source>
        <translation>显示更早的消息</translation>
    </message>
    <message>
        <source>Show later messages ({m} more)</source>
        <translation>显示较新的消息(还有 {m} 条)</translation>
    </message>
    <message>
        <source>Show later messages</source>
        <translation>显示较新的消息</translation>
    </message>
</context>
<context>
    <name>Widgets</name>
    <message>
        <source>Copy {what}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool call {name}, {label}, {dur}</source>
        <translation>工具调用 {name},{label},{dur}</translation>
    </message>
</context>
</TS>
