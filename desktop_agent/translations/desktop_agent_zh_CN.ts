<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AnswerAnnouncer</name>
    <message>
        <source>%1 asks for your approval: Alt+O allows it once, Alt+D denies it</source>
        <translation>%1 请求您的批准：Alt+O 允许一次，Alt+D 拒绝</translation>
    </message>
    <message>
        <source>The MCP server %1 asks: %2</source>
        <translation>MCP 服务器 %1 询问：%2</translation>
    </message>
    <message>
        <source>Answer finished</source>
        <translation>回答已完成</translation>
    </message>
    <message>
        <source>Answer stopped</source>
        <translation>回答已停止</translation>
    </message>
    <message>
        <source>The answer failed</source>
        <translation>回答失败</translation>
    </message>
</context>
<context>
    <name>AppTray</name>
    <message>
        <source>&amp;Hide the window</source>
        <translation>隐藏窗口(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新对话(&amp;N)</translation>
    </message>
    <message>
        <source>Quick &amp;ask…</source>
        <translation>快速提问(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Desktop Agent</source>
        <translation>Desktop Agent</translation>
    </message>
    <message>
        <source>&amp;Show the window</source>
        <translation>显示窗口(&amp;S)</translation>
    </message>
</context>
<context>
    <name>AppearancePage</name>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>S&amp;ystem (follow the desktop)</source>
        <translation>系统(跟随桌面)(&amp;Y)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
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
    <name>Approval</name>
    <message>
        <source>Allowed once</source>
        <translation>已允许一次</translation>
    </message>
    <message>
        <source>Allowed for this chat</source>
        <translation>已在本对话中允许</translation>
    </message>
    <message>
        <source>Always allowed</source>
        <translation>已始终允许</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Approve tool {tool_name}</source>
        <translation>批准工具 {tool_name}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Allow &lt;code&gt;{tool}&lt;/code&gt; to run?&lt;/b&gt;</source>
        <translation>&lt;b&gt;允许运行 &lt;code&gt;{tool}&lt;/code&gt; 吗?&lt;/b&gt;</translation>
    </message>
    <message>
        <source>destructive</source>
        <translation>会修改或删除内容</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>From: </source>
        <translation>来源:</translation>
    </message>
    <message>
        <source>Where the tool comes from</source>
        <translation>工具的来源</translation>
    </message>
    <message>
        <source>Command line:</source>
        <translation>命令行:</translation>
    </message>
    <message>
        <source>Changes:</source>
        <translation>更改:</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数:</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Show all arguments</source>
        <translation>显示全部参数</translation>
    </message>
    <message>
        <source>Hide arguments</source>
        <translation>隐藏参数</translation>
    </message>
    <message>
        <source>Appl&amp;ies to:</source>
        <translation>适用于(&amp;I):</translation>
    </message>
    <message>
        <source>What Allow for this chat and Always allow cover</source>
        <translation>“本对话中允许”和“始终允许”所涵盖的范围</translation>
    </message>
    <message>
        <source>Reason for denying (optional, sent to the model)</source>
        <translation>拒绝理由(可选,会发送给模型)</translation>
    </message>
    <message>
        <source>Reason for denying</source>
        <translation>拒绝理由</translation>
    </message>
    <message>
        <source>Allow &amp;once</source>
        <translation>允许一次(&amp;O)</translation>
    </message>
    <message>
        <source>Allow for this cha&amp;t</source>
        <translation>本对话中允许(&amp;T)</translation>
    </message>
    <message>
        <source>Al&amp;ways allow</source>
        <translation>始终允许(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Allow for this chat</source>
        <translation>本对话中允许</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>始终允许</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>Denied (the turn ended)</source>
        <translation>已拒绝(本轮已结束)</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>Run this call of %1 once; the next call asks again (Alt+O)</source>
        <translation>运行 %1 的这次调用一次；下次调用会再次询问 (Alt+O)</translation>
    </message>
    <message>
        <source>Run %1 without asking for the rest of this chat, for what &quot;Applies to&quot; says (Alt+T)</source>
        <translation>在本对话的剩余部分中运行 %1 时不再询问，范围以“适用于”为准 (Alt+T)</translation>
    </message>
    <message>
        <source>Run %1 without asking from now on, for what &quot;Applies to&quot; says; Settings → Tools revokes it (Alt+W)</source>
        <translation>从现在起运行 %1 时不再询问，范围以“适用于”为准；可在 设置 → 工具 中撤销 (Alt+W)</translation>
    </message>
    <message>
        <source>Do not run this call; the reason, if given, is sent to the model (Alt+D)</source>
        <translation>不运行这次调用；如填写了原因，会发送给模型 (Alt+D)</translation>
    </message>
</context>
<context>
    <name>Attachments</name>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>not a text file, PDF or image — not sent</source>
        <translation>不是文本文件、PDF 或图片 — 不会发送</translation>
    </message>
    <message>
        <source>too big to send</source>
        <translation>太大，无法发送</translation>
    </message>
    <message>
        <source>damaged or protected — not sent</source>
        <translation>已损坏或受保护 — 不会发送</translation>
    </message>
    <message>
        <source>this PDF has no text (scanned?) — not sent</source>
        <translation>此 PDF 没有文本（扫描件？）— 不会发送</translation>
    </message>
    <message>
        <source>empty — not sent</source>
        <translation>空文件 — 不会发送</translation>
    </message>
    <message>
        <source>models take PNG, JPEG, GIF or WebP — not sent</source>
        <translation>模型只接受 PNG、JPEG、GIF 或 WebP — 不会发送</translation>
    </message>
    <message>
        <source>its stored copy is gone</source>
        <translation>已保存的副本不见了</translation>
    </message>
    <message>
        <source>cannot be opened — not sent</source>
        <translation>无法打开 — 不会发送</translation>
    </message>
    <message>
        <source>{n} B</source>
        <translation>{n} B</translation>
    </message>
    <message>
        <source>{n} KB</source>
        <translation>{n} KB</translation>
    </message>
    <message>
        <source>{n} MB</source>
        <translation>{n} MB</translation>
    </message>
    <message>
        <source>damaged — not sent</source>
        <translation>已损坏 — 不会发送</translation>
    </message>
    <message>
        <source>only the beginning is sent</source>
        <translation>只发送开头部分</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Remove this file (Delete)</source>
        <translation>移除此文件 (Delete)</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
    <message>
        <source>Click to see the image bigger</source>
        <translation>点击查看大图</translation>
    </message>
    <message>
        <source>{name}, being read</source>
        <translation>{name}，正在读取</translation>
    </message>
    <message>
        <source>{name}, cannot be used: {why}</source>
        <translation>{name}，无法使用：{why}</translation>
    </message>
    <message>
        <source>Attached file {name}, {detail}</source>
        <translation>附件 {name}，{detail}</translation>
    </message>
    <message>
        <source>Attached files</source>
        <translation>附件</translation>
    </message>
    <message>
        <source>Left and Right choose a file, Delete removes it</source>
        <translation>用左右方向键选择文件，按 Delete 移除</translation>
    </message>
    <message>
        <source>pasted image {n}.png</source>
        <translation>粘贴的图片 {n}.png</translation>
    </message>
    <message>
        <source>Attached files: {file} ({n} of {count})</source>
        <translation>附件：{file}（第 {n} 个，共 {count} 个）</translation>
    </message>
    <message>
        <source>Wait a moment: the attached files are still being read.</source>
        <translation>请稍候：附件仍在读取中。</translation>
    </message>
    <message>
        <source>Wait a moment: the app is still starting.</source>
        <translation>请稍候：应用仍在启动中。</translation>
    </message>
    <message>
        <source>⚠ {model} cannot see images (its server says it has no vision). Remove the image or pick a model that can see images, such as llava, gemma3 or qwen2.5vl.</source>
        <translation>⚠ {model} 无法查看图片（其服务器表示它不支持视觉）。请移除图片，或选择能查看图片的模型，例如 llava、gemma3 或 qwen2.5vl。</translation>
    </message>
    <message>
        <source>This model</source>
        <translation>此模型</translation>
    </message>
    <message>
        <source>Image {name}</source>
        <translation>图片 {name}</translation>
    </message>
    <message>
        <source>The image cannot be shown.</source>
        <translation>无法显示此图片。</translation>
    </message>
    <message>
        <source>⚠ {model} may not see images: its server does not say, and it is not a model known to. Send anyway (press Send again), or pick a model that can see, such as llava, gemma3 or qwen2.5vl.</source>
        <translation>⚠ {model} 可能无法查看图片：其服务器没有说明，而它也不是已知能查看图片的模型。仍要发送（再按一次“发送”），或选择能查看图片的模型，例如 llava、gemma3 或 qwen2.5vl。</translation>
    </message>
</context>
<context>
    <name>Branches</name>
    <message>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <source>Your message (the earlier version and its answers are kept):</source>
        <translation>您的消息（之前的版本及其回答会被保留）：</translation>
    </message>
    <message>
        <source>Delete this version of the message and everything that follows it? The other versions are kept.</source>
        <translation>删除此版本的消息及其之后的所有内容？其他版本会被保留。</translation>
    </message>
    <message>
        <source>Delete this message and everything that follows it, on every branch?</source>
        <translation>删除此消息及其之后的所有内容（所有分支）？</translation>
    </message>
    <message>
        <source>Delete this branch</source>
        <translation>删除此分支</translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>Next version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Version {i} of {n}</source>
        <translation>第 {i} 个版本，共 {n} 个</translation>
    </message>
    <message>
        <source>Message actions</source>
        <translation>消息操作</translation>
    </message>
    <message>
        <source>Edit and resend…</source>
        <translation>编辑并重新发送…</translation>
    </message>
    <message>
        <source>Fork from here</source>
        <translation>从此处分叉</translation>
    </message>
    <message>
        <source>Delete this branch…</source>
        <translation>删除此分支…</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Fork from the result of {tool}</source>
        <translation>从 {tool} 的结果分叉</translation>
    </message>
</context>
<context>
    <name>BundleDialog</name>
    <message>
        <source>Install MCP bundle</source>
        <translation>安装 MCP 包</translation>
    </message>
    <message>
        <source>&lt;b&gt;{title}&lt;/b&gt; {version}</source>
        <translation>&lt;b&gt;{title}&lt;/b&gt; {version}</translation>
    </message>
    <message>
        <source>Bundle</source>
        <translation>包</translation>
    </message>
    <message>
        <source>by {author}</source>
        <translation>作者：{author}</translation>
    </message>
    <message>
        <source>by &lt;a href=&quot;{url}&quot;&gt;{author}&lt;/a&gt;</source>
        <translation>作者：&lt;a href=&quot;{url}&quot;&gt;{author}&lt;/a&gt;</translation>
    </message>
    <message>
        <source>Author</source>
        <translation>作者</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>not listed</source>
        <translation>未列出</translation>
    </message>
    <message>
        <source>{tools} (and more it makes as it runs)</source>
        <translation>{tools}（以及它运行时提供的更多工具）</translation>
    </message>
    <message>
        <source>Tools:</source>
        <translation>工具：</translation>
    </message>
    <message>
        <source>{runtime} {version}</source>
        <translation>{runtime} {version}</translation>
    </message>
    <message>
        <source>nothing else (a program of its own)</source>
        <translation>无其他依赖（独立程序）</translation>
    </message>
    <message>
        <source>{needs}; runs on {platforms}</source>
        <translation>{needs}；可运行于 {platforms}</translation>
    </message>
    <message>
        <source>Needs:</source>
        <translation>需要：</translation>
    </message>
    <message>
        <source>{files} files, {size}, unpacked into the app&apos;s data folder</source>
        <translation>{files} 个文件，{size}，解压到应用的数据文件夹</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>大小：</translation>
    </message>
    <message>
        <source>Why it cannot be installed</source>
        <translation>无法安装的原因</translation>
    </message>
    <message>
        <source>It cannot run on this computer: {why}.</source>
        <translation>它无法在这台电脑上运行：{why}。</translation>
    </message>
    <message>
        <source>What it replaces</source>
        <translation>将替换的内容</translation>
    </message>
    <message>
        <source>Replaces the installed version {version}.</source>
        <translation>将替换已安装的版本 {version}。</translation>
    </message>
    <message>
        <source>Replaces your MCP server {name} ({runs}).</source>
        <translation>将替换您的 MCP 服务器 {name}（{runs}）。</translation>
    </message>
    <message>
        <source>Its settings</source>
        <translation>它的设置</translation>
    </message>
    <message>
        <source>* required</source>
        <translation>* 必填</translation>
    </message>
    <message>
        <source>Secret values are kept in the system keyring, never in the settings file.</source>
        <translation>机密值保存在系统密钥环中，绝不会写入设置文件。</translation>
    </message>
    <message>
        <source>Install error</source>
        <translation>安装错误</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <source>one a line</source>
        <translation>每行一个</translation>
    </message>
    <message>
        <source>kept in the keyring</source>
        <translation>保存在密钥环中</translation>
    </message>
    <message>
        <source>{low} to {high}</source>
        <translation>{low} 到 {high}</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Choose {title}</source>
        <translation>选择{title}</translation>
    </message>
    <message>
        <source>Installing…</source>
        <translation>正在安装…</translation>
    </message>
    <message>
        <source>Not installed: {why}</source>
        <translation>未安装：{why}</translation>
    </message>
</context>
<context>
    <name>Cards</name>
    <message>
        <source>Error: {title}</source>
        <translation>错误:{title}</translation>
    </message>
    <message>
        <source>Error message</source>
        <translation>错误信息</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>This error is from an earlier message; the chat has moved on.</source>
        <translation>此错误来自较早的消息;对话已继续进行。</translation>
    </message>
</context>
<context>
    <name>ChatOptions</name>
    <message>
        <source>Model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Chat options</source>
        <translation>对话选项</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Choose the tools</source>
        <translation>选择工具</translation>
    </message>
    <message>
        <source>Choose which tools this chat offers the model</source>
        <translation>选择本对话向模型提供哪些工具</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Lower the temperature by 0.1</source>
        <translation>温度降低 0.1</translation>
    </message>
    <message>
        <source>Raise the temperature by 0.1</source>
        <translation>温度提高 0.1</translation>
    </message>
    <message>
        <source>Think</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>JSON format</source>
        <translation>JSON 格式</translation>
    </message>
    <message>
        <source>JSON answers</source>
        <translation>JSON 回答</translation>
    </message>
    <message>
        <source>More chat options</source>
        <translation>更多对话选项</translation>
    </message>
    <message>
        <source>The options that do not fit: JSON answers, Think</source>
        <translation>放不下的选项:JSON 回答、思考</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
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
    <name>ChatSetup</name>
    <message>
        <source>The chat&apos;s model is missing</source>
        <translation>对话的模型不存在</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>This chat used the model “{model}”, which the server does not have (any more). Your chat is kept: pick another model in the toolbar to go on.</source>
        <translation>此对话使用的模型“{model}”在服务器上不存在（或已不存在）。您的对话已保留：请在工具栏中选择其他模型以继续。</translation>
    </message>
    <message>
        <source>Use {model}</source>
        <translation>使用 {model}</translation>
    </message>
    <message>
        <source>This chat&apos;s system prompt</source>
        <translation>此对话的系统提示词</translation>
    </message>
    <message>
        <source>What the model is told before this chat&apos;s messages. A change applies from the next message and is noted in the chat.</source>
        <translation>在此对话的消息之前告诉模型的内容。更改从下一条消息起生效，并会记录在对话中。</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Use the default</source>
        <translation>使用默认值</translation>
    </message>
    <message>
        <source>The system prompt of Settings → Generation</source>
        <translation>设置 → 生成 中的系统提示词</translation>
    </message>
    <message>
        <source>System &amp;prompt…</source>
        <translation>系统提示词(&amp;P)…</translation>
    </message>
    <message>
        <source>This chat&apos;s own system prompt</source>
        <translation>此对话自己的系统提示词</translation>
    </message>
    <message>
        <source>New chat &amp;as</source>
        <translation>新对话使用预设(&amp;A)</translation>
    </message>
    <message>
        <source>Plain chat</source>
        <translation>普通对话</translation>
    </message>
    <message>
        <source>New chat as {name}</source>
        <translation>以 {name} 开始新对话</translation>
    </message>
    <message>
        <source>A new chat with the system prompt, model and tools of {name}</source>
        <translation>使用 {name} 的系统提示词、模型和工具开始新对话</translation>
    </message>
    <message>
        <source>Edit presets…</source>
        <translation>编辑预设…</translation>
    </message>
    <message>
        <source>This chat&apos;s model “{model}” is not on the server.</source>
        <translation>此对话的模型“{model}”不在服务器上。</translation>
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
        <translation>使用 {url}</translation>
    </message>
</context>
<context>
    <name>Compose</name>
    <message>
        <source>Message input</source>
        <translation>消息输入框</translation>
    </message>
    <message>
        <source>Message the assistant…  (Shift+Enter: new line)</source>
        <translation>给助手发消息…  (Shift+Enter:换行)</translation>
    </message>
    <message>
        <source>Enter sends; Shift+Enter adds a line; Esc stops an answer</source>
        <translation>Enter 发送;Shift+Enter 换行;Esc 停止回答</translation>
    </message>
    <message>
        <source>Attach files (Ctrl+Shift+A) — or drop or paste them here</source>
        <translation>添加附件 (Ctrl+Shift+A) — 或将文件拖放或粘贴到这里</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>添加附件</translation>
    </message>
    <message>
        <source>Attach files…</source>
        <translation>添加附件…</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答(Esc)</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送(Enter)</translation>
    </message>
    <message>
        <source>An answer is being written</source>
        <translation>正在生成回答</translation>
    </message>
    <message>
        <source>The assistant is still answering. Stop the answer and {what}?</source>
        <translation>助手仍在回答。要停止回答并{what}吗?</translation>
    </message>
    <message>
        <source>Stop and {what}</source>
        <translation>停止并{what}</translation>
    </message>
    <message>
        <source>Keep the answer</source>
        <translation>保留回答</translation>
    </message>
</context>
<context>
    <name>ContextMeter</name>
    <message>
        <source>{usage} (assumed)</source>
        <translation>{usage}（估计）</translation>
    </message>
    <message>
        <source>as the server counted them</source>
        <translation>按服务器的计数</translation>
    </message>
    <message>
        <source>estimated</source>
        <translation>估算</translation>
    </message>
    <message>
        <source>The last request used {used:,} of the model&apos;s {window:,}-token context window ({how}).</source>
        <translation>上一次请求使用了模型 {window:,} 词元上下文窗口中的 {used:,} 个({how})。</translation>
    </message>
    <message>
        <source>The server does not say its window, so this one is assumed (Settings: “Context window if unknown”); the real one is learned when the server refuses a request as too long.</source>
        <translation>服务器没有告知其窗口大小,因此假定为此值(设置:“未知时的上下文窗口”);当服务器以过长为由拒绝请求时,会学到真实的大小。</translation>
    </message>
    <message>
        <source>%n earlier message did not fit and was not sent.</source>
        <translation>有 %n 条较早的消息放不下,未发送。</translation>
    </message>
    <message>
        <source>%n earlier messages did not fit and were not sent.</source>
        <translation>有 %n 条较早的消息放不下,未发送。</translation>
    </message>
    <message>
        <source>%n earlier tool result was sent trimmed.</source>
        <translation>有 %n 个较早的工具结果被截短后发送。</translation>
    </message>
    <message>
        <source>%n earlier tool results were sent trimmed.</source>
        <translation>有 %n 个较早的工具结果被截短后发送。</translation>
    </message>
    <message>
        <source>Summarise earlier messages to keep more of the chat in view.</source>
        <translation>总结较早的消息,可让模型看到更多对话内容。</translation>
    </message>
    <message>
        <source>Context window used</source>
        <translation>已用上下文窗口</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Summarise</source>
        <translation>总结</translation>
    </message>
    <message>
        <source>Summarise earlier messages: the model gets a summary instead of them</source>
        <translation>总结较早的消息:模型将收到摘要而不是原消息</translation>
    </message>
    <message>
        <source>Summarise earlier messages</source>
        <translation>总结较早的消息</translation>
    </message>
    <message>
        <source>Message too long for the model</source>
        <translation>消息对模型来说太长</translation>
    </message>
    <message>
        <source>This message is about {tokens:,} tokens; the model&apos;s context window holds {window:,} (with room for the answer). The model would miss part of it.</source>
        <translation>这条消息约有 {tokens:,} 个词元;模型的上下文窗口可容纳 {window:,} 个(含回答的空间)。模型会漏掉其中一部分。</translation>
    </message>
    <message>
        <source>Send it anyway, or shorten it (or pick a model with a larger window).</source>
        <translation>仍然发送,或将其缩短(或选择窗口更大的模型)。</translation>
    </message>
    <message>
        <source>Send anyway</source>
        <translation>仍然发送</translation>
    </message>
</context>
<context>
    <name>Controller</name>
    <message>
        <source>Chats will not be saved: the store could not be opened ({exc}).</source>
        <translation>对话将不会被保存:无法打开存储({exc})。</translation>
    </message>
    <message>
        <source>Stopped. The partial answer is kept.</source>
        <translation>已停止。部分回答已保留。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Could not undo the summary: {error}</source>
        <translation>无法撤销摘要：{error}</translation>
    </message>
    <message>
        <source>Summary undone: the earlier messages are sent again.</source>
        <translation>已撤销摘要：之前的消息会重新发送。</translation>
    </message>
    <message>
        <source>New chat with {preset}.</source>
        <translation>已使用 {preset} 开始新对话。</translation>
    </message>
    <message>
        <source>Could not open the chat: {error}</source>
        <translation>无法打开对话：{error}</translation>
    </message>
    <message>
        <source>Chats are not saved, so they have no branches.</source>
        <translation>对话未被保存，因此没有分支。</translation>
    </message>
    <message>
        <source>The same answer as before: at temperature {t} the model answers alike each time. A higher temperature (above the message box) gives other answers.</source>
        <translation>与之前的回答相同：温度为 {t} 时，模型每次的回答都一样。调高温度（在输入框上方）可得到不同的回答。</translation>
    </message>
    <message>
        <source>Could not regenerate: {error}</source>
        <translation>无法重新生成：{error}</translation>
    </message>
    <message>
        <source>Could not fork the chat: {error}</source>
        <translation>无法分叉对话：{error}</translation>
    </message>
    <message>
        <source>Forked into a new chat.</source>
        <translation>已分叉为新对话。</translation>
    </message>
    <message>
        <source>Could not show that version: {error}</source>
        <translation>无法显示该版本：{error}</translation>
    </message>
    <message>
        <source>Could not delete the branch: {error}</source>
        <translation>无法删除分支：{error}</translation>
    </message>
    <message>
        <source>System prompt changed: {prompt}</source>
        <translation>系统提示词已更改：{prompt}</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Model: {name} (from the next message)</source>
        <translation>模型：{name}（从下一条消息起）</translation>
    </message>
    <message>
        <source>Model: {before} → {after}</source>
        <translation>模型：{before} → {after}</translation>
    </message>
    <message>
        <source>Pulled {model}.</source>
        <translation>已拉取 {model}。</translation>
    </message>
    <message>
        <source>Pull failed: {text}</source>
        <translation>拉取失败:{text}</translation>
    </message>
    <message>
        <source>Stopped pulling {name}.</source>
        <translation>已停止拉取 {name}。</translation>
    </message>
    <message>
        <source>Pulling {name}…</source>
        <translation>正在拉取 {name}…</translation>
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
        <translation>一次</translation>
    </message>
    <message>
        <source>for this chat</source>
        <translation>本对话内</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>没有回应</translation>
    </message>
    <message>
        <source>the turn was stopped before an answer</source>
        <translation>回应之前本轮已停止</translation>
    </message>
    <message>
        <source>the question could not be asked</source>
        <translation>无法发出询问</translation>
    </message>
    <message>
        <source>it needs the user&apos;s approval and no one could be asked</source>
        <translation>需要用户批准,但无人可问</translation>
    </message>
    <message>
        <source>allowed by rule #{rule}</source>
        <translation>由规则 #{rule} 允许</translation>
    </message>
    <message>
        <source>denied by rule #{rule}</source>
        <translation>由规则 #{rule} 拒绝</translation>
    </message>
    <message>
        <source> ({reason})</source>
        <translation>({reason})</translation>
    </message>
    <message>
        <source>: {reason}</source>
        <translation>:{reason}</translation>
    </message>
</context>
<context>
    <name>Delegates</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Tool result</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>%n msg</source>
        <comment>a short count of messages</comment>
        <translation>%n 条</translation>
    </message>
    <message>
        <source>New chat title</source>
        <translation>新对话标题</translation>
    </message>
    <message>
        <source>Title (empty: first message)</source>
        <translation>标题(留空:使用第一条消息)</translation>
    </message>
</context>
<context>
    <name>DesktopPage</name>
    <message>
        <source>Show an icon in the system &amp;tray; closing the window keeps the app there</source>
        <translation>在系统托盘中显示图标(&amp;T)；关闭窗口后应用仍保留在托盘中</translation>
    </message>
    <message>
        <source>Tray icon</source>
        <translation>托盘图标</translation>
    </message>
    <message>
        <source>The tray icon&apos;s menu shows or hides the window, starts a new chat, opens the quick ask and quits.</source>
        <translation>托盘图标的菜单可以显示或隐藏窗口、开始新对话、打开快速提问以及退出。</translation>
    </message>
    <message>
        <source>Tray note</source>
        <translation>托盘说明</translation>
    </message>
    <message>
        <source>Tray:</source>
        <translation>托盘：</translation>
    </message>
    <message>
        <source>Its menu: show or hide the window, new chat, quick ask, quit.</source>
        <translation>其菜单：显示或隐藏窗口、新对话、快速提问、退出。</translation>
    </message>
    <message>
        <source>&amp;Notify me when a long answer ends while the window is in the background</source>
        <translation>窗口在后台时，较长的回答结束后通知我(&amp;N)</translation>
    </message>
    <message>
        <source>Notifications</source>
        <translation>通知</translation>
    </message>
    <message>
        <source>Notifications:</source>
        <translation>通知：</translation>
    </message>
    <message>
        <source>An answer that took more than 10 seconds: you likely turned to something else.</source>
        <translation>耗时超过 10 秒的回答：您很可能已经去做别的事了。</translation>
    </message>
    <message>
        <source>This desktop has no system tray (notification area), so there is no tray icon: closing the window quits the app.</source>
        <translation>此桌面没有系统托盘（通知区域），因此没有托盘图标：关闭窗口即退出应用。</translation>
    </message>
</context>
<context>
    <name>Dialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Provider:</source>
        <translation>提供方:</translation>
    </message>
    <message>
        <source>&amp;Ollama (local models)</source>
        <translation>&amp;Ollama(本地模型)</translation>
    </message>
    <message>
        <source>Open&amp;AI-compatible server</source>
        <translation>Open&amp;AI 兼容服务器</translation>
    </message>
    <message>
        <source>Provider: Ollama</source>
        <translation>提供方:Ollama</translation>
    </message>
    <message>
        <source>Provider: OpenAI-compatible</source>
        <translation>提供方:OpenAI 兼容</translation>
    </message>
    <message>
        <source>Settings sections</source>
        <translation>设置分区</translation>
    </message>
    <message>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <source>OpenAI-compatible</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>Generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Desktop</source>
        <translation>桌面</translation>
    </message>
    <message>
        <source>Settings status</source>
        <translation>设置状态</translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>To save, fix: </source>
        <translation>要保存,请修正:</translation>
    </message>
    <message>
        <source>The settings could not be saved: {exc}</source>
        <translation>无法保存设置:{exc}</translation>
    </message>
    <message>
        <source>The MCP servers&apos; secrets could not go into the system keyring: {problem} They are kept for this session only.</source>
        <translation>MCP 服务器的机密无法存入系统密钥环:{problem} 它们仅在本次会话中保留。</translation>
    </message>
    <message>
        <source>The MCP servers&apos; secrets could not be saved: {text}</source>
        <translation>无法保存 MCP 服务器的机密:{text}</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Settings saved, but the keys could not go into the system keyring: {problem} They are kept for this session only. Press Cancel to close.</source>
        <translation>设置已保存,但密钥无法存入系统密钥环:{problem} 它们仅在本次会话中保留。按“取消”关闭。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The keys could not be saved: {text}</source>
        <translation>无法保存密钥:{text}</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Export chat</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>{filter};;All files (*)</source>
        <translation>{filter};;所有文件 (*)</translation>
    </message>
    <message>
        <source>Import chats</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Chat files: Desktop Agent, ChatGPT conversations.json, Open WebUI (*.json);;Chat histories of Desktop Agent (conversations.sqlite3*);;All files (*)</source>
        <translation>对话文件：Desktop Agent、ChatGPT conversations.json、Open WebUI (*.json);;Desktop Agent 的对话历史数据库 (conversations.sqlite3*);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{title}”?</source>
        <translation>删除“{title}”?</translation>
    </message>
    <message>
        <source>Its %n message will be removed from the history. Export it first if you want to keep a copy.</source>
        <translation>它的 %n 条消息将从历史记录中移除。如果想保留副本,请先导出。</translation>
    </message>
    <message>
        <source>Its %n messages will be removed from the history. Export it first if you want to keep a copy.</source>
        <translation>它的 %n 条消息将从历史记录中移除。如果想保留副本,请先导出。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>Dock</name>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <source>Chat history</source>
        <translation>对话历史</translation>
    </message>
    <message>
        <source>&amp;History</source>
        <translation>历史记录(&amp;H)</translation>
    </message>
    <message>
        <source>Show or hide the chat history (Ctrl+H)</source>
        <translation>显示或隐藏对话历史(Ctrl+H)</translation>
    </message>
    <message>
        <source>The list of past chats could not be shown ({exc}); chats are still saved.</source>
        <translation>无法显示过去的对话列表({exc});对话仍会被保存。</translation>
    </message>
</context>
<context>
    <name>Elicitation</name>
    <message>
        <source>This field is required.</source>
        <translation>此项为必填项。</translation>
    </message>
    <message>
        <source>Enter a number.</source>
        <translation>请输入一个数字。</translation>
    </message>
    <message>
        <source>Enter a whole number.</source>
        <translation>请输入一个整数。</translation>
    </message>
    <message>
        <source>At least {minimum}.</source>
        <translation>至少为 {minimum}。</translation>
    </message>
    <message>
        <source>At most {maximum}.</source>
        <translation>最多为 {maximum}。</translation>
    </message>
    <message>
        <source>Answer yes or no.</source>
        <translation>请回答是或否。</translation>
    </message>
    <message>
        <source>Pick one of the choices.</source>
        <translation>请从选项中选择一个。</translation>
    </message>
    <message>
        <source>Pick from the choices.</source>
        <translation>请从选项中选择。</translation>
    </message>
    <message>
        <source>Pick at least {n}.</source>
        <translation>至少选择 {n} 个。</translation>
    </message>
    <message>
        <source>Pick at most {n}.</source>
        <translation>最多选择 {n} 个。</translation>
    </message>
    <message>
        <source>At least {n} characters.</source>
        <translation>至少 {n} 个字符。</translation>
    </message>
    <message>
        <source>At most {n} characters.</source>
        <translation>最多 {n} 个字符。</translation>
    </message>
    <message>
        <source>Enter an email address.</source>
        <translation>请输入电子邮件地址。</translation>
    </message>
    <message>
        <source>Enter a full address (https://…).</source>
        <translation>请输入完整地址（https://…）。</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <source>What day of the week is it today?</source>
        <translation>今天星期几?</translation>
    </message>
    <message>
        <source>What&apos;s the weather in Paris right now?</source>
        <translation>巴黎现在的天气怎么样?</translation>
    </message>
    <message>
        <source>What is 17.5% of 2,340?</source>
        <translation>2,340 的 17.5% 是多少?</translation>
    </message>
    <message>
        <source>Explain Python&apos;s GIL in three bullet points</source>
        <translation>用三个要点解释 Python 的 GIL</translation>
    </message>
    <message>
        <source>Write a shell one-liner that finds the largest files</source>
        <translation>写一行 shell 命令找出最大的文件</translation>
    </message>
    <message>
        <source>Suggest five names for a hiking club</source>
        <translation>为一个徒步俱乐部起五个名字</translation>
    </message>
    <message>
        <source>Ask anything. The assistant can use tools — you&apos;ll see each call in the sidebar.</source>
        <translation>尽管提问。助手可以使用工具 — 每次调用都会显示在侧栏中。</translation>
    </message>
    <message>
        <source>Ask anything. Tools are off: the assistant answers from the model alone.</source>
        <translation>尽管提问。工具已关闭:助手仅凭模型本身回答。</translation>
    </message>
    <message>
        <source>How can I help?</source>
        <translation>有什么可以帮你?</translation>
    </message>
    <message>
        <source>Plain</source>
        <translation>普通</translation>
    </message>
    <message>
        <source>Start as:</source>
        <translation>开始方式：</translation>
    </message>
    <message>
        <source>This chat with the system prompt, model and tools of {name}</source>
        <translation>此对话使用 {name} 的系统提示词、模型和工具</translation>
    </message>
    <message>
        <source>This chat with the system prompt of Settings</source>
        <translation>此对话使用设置中的系统提示词</translation>
    </message>
    <message>
        <source>Start as {name}</source>
        <translation>以 {name} 开始</translation>
    </message>
    <message>
        <source>Ask: {text}</source>
        <translation>提问:{text}</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>Server problem</source>
        <translation>服务器问题</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Open settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <source>Can&apos;t reach Ollama</source>
        <translation>无法连接 Ollama</translation>
    </message>
    <message>
        <source>Can&apos;t reach the server</source>
        <translation>无法连接服务器</translation>
    </message>
    <message>
        <source>Model &apos;{model}&apos; is not installed</source>
        <translation>模型“{model}”未安装</translation>
    </message>
    <message>
        <source>Pull {model}</source>
        <translation>拉取 {model}</translation>
    </message>
    <message>
        <source>Model &apos;{model}&apos; is not available</source>
        <translation>模型“{model}”不可用</translation>
    </message>
    <message>
        <source>Use {name}</source>
        <translation>使用 {name}</translation>
    </message>
    <message>
        <source>Server not reachable</source>
        <translation>服务器无法连接</translation>
    </message>
    <message>
        <source>No API key</source>
        <translation>没有 API 密钥</translation>
    </message>
    <message>
        <source>Keyring locked</source>
        <translation>密钥环已锁定</translation>
    </message>
    <message>
        <source>API key rejected</source>
        <translation>API 密钥被拒绝</translation>
    </message>
    <message>
        <source>Model not available</source>
        <translation>模型不可用</translation>
    </message>
    <message>
        <source>Rate limited</source>
        <translation>请求受限</translation>
    </message>
    <message>
        <source>Out of quota</source>
        <translation>额度已用完</translation>
    </message>
    <message>
        <source>Every API key failed</source>
        <translation>所有 API 密钥均失败</translation>
    </message>
    <message>
        <source>Conversation too long</source>
        <translation>对话太长</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>This model can&apos;t use tools</source>
        <translation>此模型不能使用工具</translation>
    </message>
    <message>
        <source>Unreadable tool call</source>
        <translation>无法读取的工具调用</translation>
    </message>
    <message>
        <source>Empty answer</source>
        <translation>空回答</translation>
    </message>
    <message>
        <source>The server stopped responding</source>
        <translation>服务器停止响应</translation>
    </message>
    <message>
        <source>Server not responding</source>
        <translation>服务器无响应</translation>
    </message>
    <message>
        <source>Answer cut off</source>
        <translation>回答被中断</translation>
    </message>
    <message>
        <source>Too many steps</source>
        <translation>步骤过多</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Settings problem</source>
        <translation>设置有问题</translation>
    </message>
    <message>
        <source>No answer from the server</source>
        <translation>服务器没有回答</translation>
    </message>
    <message>
        <source>Web page instead of an answer (HTTP {status})</source>
        <translation>返回了网页而不是回答(HTTP {status})</translation>
    </message>
    <message>
        <source>Web page instead of an answer</source>
        <translation>返回了网页而不是回答</translation>
    </message>
    <message>
        <source>Not an Ollama API</source>
        <translation>不是 Ollama API</translation>
    </message>
    <message>
        <source>Not an OpenAI-compatible API</source>
        <translation>不是 OpenAI 兼容 API</translation>
    </message>
    <message>
        <source>Not an API</source>
        <translation>不是 API</translation>
    </message>
    <message>
        <source>Not a model server&apos;s API</source>
        <translation>不是模型服务器的 API</translation>
    </message>
    <message>
        <source>Server error</source>
        <translation>服务器错误</translation>
    </message>
    <message>
        <source>Chat history damaged</source>
        <translation>对话历史已损坏</translation>
    </message>
    <message>
        <source>Open data folder</source>
        <translation>打开数据文件夹</translation>
    </message>
    <message>
        <source>Chat history problem</source>
        <translation>对话历史有问题</translation>
    </message>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Something unexpected went wrong ({kind}). Your message is kept; try again. Details are in the log file {log_file}.</source>
        <translation>发生了意外错误({kind})。你的消息已保留;请重试。详细信息在日志文件 {log_file} 中。</translation>
    </message>
    <message>
        <source>Something went wrong</source>
        <translation>出错了</translation>
    </message>
    <message>
        <source>An unexpected error happened ({kind}). Details are in the log file {log_file}.</source>
        <translation>发生了意外错误({kind})。详细信息在日志文件 {log_file} 中。</translation>
    </message>
    <message>
        <source>desktop-agent {version} · Python {python_version} · PySide6 {pyside} · {platform}</source>
        <translation>desktop-agent {version} · Python {python_version} · PySide6 {pyside} · {platform}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Something went wrong.&lt;/b&gt;&lt;br&gt;The app is still running; your chat is saved. If this keeps happening, please report it with the details below.</source>
        <translation>&lt;b&gt;出错了。&lt;/b&gt;&lt;br&gt;应用仍在运行;你的对话已保存。如果此问题反复出现,请附上以下详细信息报告。</translation>
    </message>
    <message>
        <source>Error summary</source>
        <translation>错误摘要</translation>
    </message>
    <message>
        <source>Log file: {log_path}</source>
        <translation>日志文件:{log_path}</translation>
    </message>
    <message>
        <source>Log file path</source>
        <translation>日志文件路径</translation>
    </message>
    <message>
        <source>Error details</source>
        <translation>错误详细信息</translation>
    </message>
    <message>
        <source>Show details</source>
        <translation>显示详细信息</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>Hide details</source>
        <translation>隐藏详细信息</translation>
    </message>
    <message>
        <source>Copied ✓</source>
        <translation>已复制 ✓</translation>
    </message>
    <message>
        <source>{n} step</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>Can&apos;t reach Ollama at {host} — is it running? Start it with `ollama serve`.{more}</source>
        <translation>无法连接 {host} 上的 Ollama — 它在运行吗?请用 `ollama serve` 启动它。{more}</translation>
    </message>
    <message>
        <source>Can&apos;t reach the server at {host}{more}.</source>
        <translation>无法连接 {host} 上的服务器{more}。</translation>
    </message>
    <message>
        <source>Check the base URL and that the server is running.</source>
        <translation>请检查基础 URL,并确认服务器正在运行。</translation>
    </message>
    <message>
        <source> All {keys_tried} keys were rejected.</source>
        <translation>全部 {keys_tried} 个密钥都被拒绝。</translation>
    </message>
    <message>
        <source>The API key for this provider was rejected{code} by {base_url}.{many}</source>
        <translation>此提供方的 API 密钥被 {base_url} 拒绝{code}。{many}</translation>
    </message>
    <message>
        <source>Check the key in Settings → OpenAI-compatible.</source>
        <translation>请在 设置 → OpenAI 兼容 中检查密钥。</translation>
    </message>
    <message>
        <source>Pull it with `ollama pull {model}`</source>
        <translation>用 `ollama pull {model}` 拉取它</translation>
    </message>
    <message>
        <source>The model &apos;{model}&apos; is not installed in Ollama.</source>
        <translation>模型“{model}”未安装在 Ollama 中。</translation>
    </message>
    <message>
        <source> or choose one of: {names}.</source>
        <translation>,或从以下模型中选择一个:{names}。</translation>
    </message>
    <message>
        <source>The server does not serve a model named &apos;{model}&apos;</source>
        <translation>服务器不提供名为“{model}”的模型</translation>
    </message>
    <message>
        <source>; it serves: {names}.</source>
        <translation>;它提供:{names}。</translation>
    </message>
    <message>
        <source>Choose another model.</source>
        <translation>请选择其他模型。</translation>
    </message>
    <message>
        <source>try again in a moment</source>
        <translation>请稍后重试</translation>
    </message>
    <message>
        <source>try again in about {minutes} minutes</source>
        <translation>请约 {minutes} 分钟后重试</translation>
    </message>
    <message>
        <source>try again in {seconds} s</source>
        <translation>请 {seconds} 秒后重试</translation>
    </message>
    <message>
        <source>The provider is rate limiting requests — {wait}.</source>
        <translation>提供方正在限制请求频率 — {wait}。</translation>
    </message>
    <message>
        <source> Provider said: {detail}</source>
        <translation> 提供方说:{detail}</translation>
    </message>
    <message>
        <source>All {keys_tried} API keys for {base_url} are</source>
        <translation>{base_url} 的全部 {keys_tried} 个 API 密钥</translation>
    </message>
    <message>
        <source>The API key for {base_url} is</source>
        <translation>{base_url} 的 API 密钥</translation>
    </message>
    <message>
        <source>{who} out of quota — check your plan and billing.</source>
        <translation>{who}额度已用完 — 请检查你的套餐和账单。</translation>
    </message>
    <message>
        <source>Add credit on the provider&apos;s billing page, or use another key in Settings → OpenAI-compatible.</source>
        <translation>请在提供方的账单页面充值,或在 设置 → OpenAI 兼容 中使用其他密钥。</translation>
    </message>
    <message>
        <source>All {keys_tried} API key(s) failed; last error: {last_reason}</source>
        <translation>全部 {keys_tried} 个 API 密钥均失败;最后的错误:{last_reason}</translation>
    </message>
    <message>
        <source>This conversation is too long for the model&apos;s context window</source>
        <translation>此对话对模型的上下文窗口来说太长</translation>
    </message>
    <message>
        <source>Summarise earlier messages (Chat menu), start a new chat, or pick a model with a larger context in Settings.</source>
        <translation>请总结较早的消息(“对话”菜单)、开始新对话,或在设置中选择上下文更大的模型。</translation>
    </message>
    <message>
        <source>The model &apos;{model}&apos; does not support tools.</source>
        <translation>模型“{model}”不支持工具。</translation>
    </message>
    <message>
        <source>Choose a model with tool support.</source>
        <translation>请选择支持工具的模型。</translation>
    </message>
    <message>
        <source>The backend returned a malformed tool call.</source>
        <translation>后端返回了格式错误的工具调用。</translation>
    </message>
    <message>
        <source>The server returned an empty answer. Try again, or try another model.</source>
        <translation>服务器返回了空回答。请重试,或换一个模型。</translation>
    </message>
    <message>
        <source>The answer was cut off: the connection to the server broke mid-answer.</source>
        <translation>回答被中断:与服务器的连接在回答中途断开。</translation>
    </message>
    <message>
        <source>no data for {waited_s:g} s</source>
        <translation>{waited_s:g} 秒无数据</translation>
    </message>
    <message>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source> at {host}</source>
        <translation>({host})</translation>
    </message>
    <message>
        <source> for {waited_s:g} s</source>
        <translation> {waited_s:g} 秒</translation>
    </message>
    <message>
        <source>The server{where} stopped responding: it sent nothing{waited} in the middle of the answer.</source>
        <translation>服务器{where}停止响应:在回答中途{waited}没有发送任何内容。</translation>
    </message>
    <message>
        <source>Try again; if it keeps happening, raise &apos;wait for next data&apos; in Settings.</source>
        <translation>请重试;如果反复出现,请在设置中调高“等待后续数据”。</translation>
    </message>
    <message>
        <source> (HTTP {status})</source>
        <translation>(HTTP {status})</translation>
    </message>
    <message>
        <source>The server reported an error{code}: {detail}</source>
        <translation>服务器报告了错误{code}:{detail}</translation>
    </message>
    <message>
        <source>Check the Ollama host in Settings → Ollama: try {fix}.</source>
        <translation>请在 设置 → Ollama 中检查 Ollama 主机:试试 {fix}。</translation>
    </message>
    <message>
        <source>Check the Ollama host in Settings → Ollama.</source>
        <translation>请在 设置 → Ollama 中检查 Ollama 主机。</translation>
    </message>
    <message>
        <source>Check the base URL in Settings → OpenAI-compatible: try {fix}.</source>
        <translation>请在 设置 → OpenAI 兼容 中检查基础 URL:试试 {fix}。</translation>
    </message>
    <message>
        <source>Check the base URL in Settings → OpenAI-compatible.</source>
        <translation>请在 设置 → OpenAI 兼容 中检查基础 URL。</translation>
    </message>
    <message>
        <source>the server answered HTTP {status} with a web page</source>
        <translation>服务器以网页回应了 HTTP {status}</translation>
    </message>
    <message>
        <source>{url} answered HTTP {status} with a web page, not an API answer</source>
        <translation>{url} 以网页回应了 HTTP {status},而不是 API 回答</translation>
    </message>
    <message>
        <source>A proxy or gateway in front of the model server got no answer from it: check that the model server is running, then try again.</source>
        <translation>模型服务器前面的代理或网关没有收到它的回应:请确认模型服务器正在运行,然后重试。</translation>
    </message>
    <message>
        <source>A sign-in page or a proxy that wants a login is in the way.</source>
        <translation>中间有一个登录页面或需要登录的代理。</translation>
    </message>
    <message>
        <source>Nothing answers at this path.</source>
        <translation>此路径上没有任何响应。</translation>
    </message>
    <message>
        <source>an Ollama API</source>
        <translation>Ollama API</translation>
    </message>
    <message>
        <source>an OpenAI-compatible API</source>
        <translation>OpenAI 兼容 API</translation>
    </message>
    <message>
        <source>This address does not look like {api}: {url} answered with {seen}.</source>
        <translation>此地址看起来不像 {api}:{url} 的回应是{seen}。</translation>
    </message>
    <message>
        <source>no answer within {timeout_s:g} s</source>
        <translation>{timeout_s:g} 秒内无回答</translation>
    </message>
    <message>
        <source>Ollama at {host}</source>
        <translation>{host} 上的 Ollama</translation>
    </message>
    <message>
        <source>The server at {host}</source>
        <translation>{host} 上的服务器</translation>
    </message>
    <message>
        <source>{who} did not answer within {timeout_s:g} s — it may be busy or still loading the model.</source>
        <translation>{who}在 {timeout_s:g} 秒内没有回答 — 它可能正忙,或仍在加载模型。</translation>
    </message>
    <message>
        <source>Try again.</source>
        <translation>请重试。</translation>
    </message>
    <message>
        <source>Try again, or raise the timeout in Settings → OpenAI-compatible.</source>
        <translation>请重试,或在 设置 → OpenAI 兼容 中调高超时。</translation>
    </message>
    <message>
        <source>The agent did not finish in {plural}.</source>
        <translation>代理未能在 {plural}内完成。</translation>
    </message>
    <message>
        <source>Ask again, or raise &apos;max steps&apos; in Settings.</source>
        <translation>请重新提问,或在设置中调高“最多步骤数”。</translation>
    </message>
    <message>
        <source>Error: {detail}</source>
        <translation>错误:{detail}</translation>
    </message>
    <message>
        <source>Error: tool &apos;{name}&apos; timed out after {timeout_s:g} s</source>
        <translation>错误:工具“{name}”在 {timeout_s:g} 秒后超时</translation>
    </message>
    <message>
        <source>Error: tool &apos;{name}&apos; crashed the process it ran in ({how}); it returned no result. The tool host was restarted for the next call.</source>
        <translation>错误:工具“{name}”使其所在的进程崩溃({how});没有返回结果。工具宿主进程已为下一次调用重新启动。</translation>
    </message>
    <message>
        <source>Error: tool &apos;{name}&apos; printed more than {limit_mb} MB and was stopped.</source>
        <translation>错误:工具“{name}”输出超过 {limit_mb} MB,已被停止。</translation>
    </message>
    <message>
        <source>Error: the tool host could not run the call ({detail}).</source>
        <translation>错误:工具宿主进程无法运行此调用({detail})。</translation>
    </message>
    <message>
        <source>Unexpected error in {where}: {kind}</source>
        <translation>{where}中出现意外错误:{kind}</translation>
    </message>
    <message>
        <source>. Try again; if it keeps happening, copy the details into a bug report.</source>
        <translation>。请重试;如果反复出现,请将详细信息复制到错误报告中。</translation>
    </message>
    <message>
        <source>No API key is set for {base_url}, and the server asks for one ({status}).</source>
        <translation>没有为 {base_url} 设置 API 密钥,而服务器要求提供({status})。</translation>
    </message>
    <message>
        <source>Add one in Settings → OpenAI-compatible, or set the OPENAI_API_KEY environment variable.</source>
        <translation>请在 设置 → OpenAI 兼容 中添加一个,或设置 OPENAI_API_KEY 环境变量。</translation>
    </message>
    <message>
        <source>No API key is set for {base_url}.</source>
        <translation>没有为 {base_url} 设置 API 密钥。</translation>
    </message>
    <message>
        <source>Add one in Settings → OpenAI-compatible, or set the OPENAI_API_KEY environment variable (for a local server that needs no key, turn off &apos;needs a key&apos;).</source>
        <translation>请在 设置 → OpenAI 兼容 中添加一个,或设置 OPENAI_API_KEY 环境变量(对于不需要密钥的本地服务器,请关闭“需要密钥”)。</translation>
    </message>
    <message>
        <source>The keyring is locked — unlock it to use an API key saved there for {base_url}.</source>
        <translation>密钥环已锁定 — 请解锁以使用其中为 {base_url} 保存的 API 密钥。</translation>
    </message>
    <message>
        <source>You can unlock it in Passwords and Keys (or by logging in again); then press Retry.</source>
        <translation>你可以在“密码和密钥”中解锁(或重新登录);然后按“重试”。</translation>
    </message>
    <message>
        <source>finish_reason: length</source>
        <translation>finish_reason: length</translation>
    </message>
    <message>
        <source>The model reached its output limit before writing an answer. Try again, ask for a shorter answer, or pick a model with a larger context.</source>
        <translation>模型在写出回答之前就达到了输出上限。请重试、要求更短的回答,或选择上下文更大的模型。</translation>
    </message>
    <message>
        <source>No saved chat with id &apos;{ref}&apos;. `desktop-agent history list` shows the ids.</source>
        <translation>没有 ID 为“{ref}”的已保存对话。`desktop-agent history list` 可列出所有 ID。</translation>
    </message>
    <message>
        <source>The id prefix &apos;{ref}&apos; matches {n_matches} chats ({shown}); type more of the id.</source>
        <translation>ID 前缀“{ref}”匹配 {n_matches} 个对话({shown});请输入更多 ID 字符。</translation>
    </message>
    <message>
        <source>The chat history file {path} is damaged ({detail}). Restart desktop-agent: it will keep the damaged file aside and start a new history.</source>
        <translation>对话历史文件 {path} 已损坏({detail})。请重启 desktop-agent:它会将损坏的文件放在一边,并开始新的历史记录。</translation>
    </message>
    <message>
        <source>Can&apos;t import {path}: {reason}. Nothing was imported.</source>
        <translation>无法导入 {path}:{reason}。未导入任何内容。</translation>
    </message>
</context>
<context>
    <name>FolderList</name>
    <message>
        <source>A&amp;dd folder…</source>
        <translation>添加文件夹(&amp;D)…</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>移除(&amp;V)</translation>
    </message>
    <message>
        <source>Add a folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <source>Not found, skipped:</source>
        <translation>未找到,已跳过:</translation>
    </message>
    <message>
        <source>{name}: add a folder</source>
        <translation>{name}:添加文件夹</translation>
    </message>
    <message>
        <source>{name}: remove the selected folder</source>
        <translation>{name}:移除所选文件夹</translation>
    </message>
    <message>
        <source>{name} note</source>
        <translation>{name}说明</translation>
    </message>
</context>
<context>
    <name>FolderOffer</name>
    <message>
        <source>File tools need a folder</source>
        <translation>文件工具需要一个文件夹</translation>
    </message>
    <message>
        <source>The model tried to use your files, but no folder is allowed for file and command tools yet. Allow one and ask again.</source>
        <translation>模型试图使用你的文件,但尚未允许文件和命令工具使用任何文件夹。请允许一个文件夹后重新提问。</translation>
    </message>
    <message>
        <source>&amp;Allow a folder…</source>
        <translation>允许文件夹(&amp;A)…</translation>
    </message>
    <message>
        <source>Allow a folder for file and command tools</source>
        <translation>为文件和命令工具允许一个文件夹</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>Do not allow a folder now</source>
        <translation>现在不允许文件夹</translation>
    </message>
    <message>
        <source>Allow tools to use a folder</source>
        <translation>允许工具使用文件夹</translation>
    </message>
</context>
<context>
    <name>GenerationPage</name>
    <message>
        <source>&amp;Model (Ollama):</source>
        <translation>模型(Ollama)(&amp;M):</translation>
    </message>
    <message>
        <source>&amp;Model (OpenAI-compatible):</source>
        <translation>模型(OpenAI 兼容)(&amp;M):</translation>
    </message>
    <message>
        <source>Model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <source>Model error</source>
        <translation>模型错误</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M):</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation>温度(&amp;T):</translation>
    </message>
    <message>
        <source>Keep alive (Ollama)</source>
        <translation>保持加载(Ollama)</translation>
    </message>
    <message>
        <source>How long Ollama keeps the model loaded after a reply: seconds (-1 = always, 0 = unload at once) or a duration such as 5m or 1h</source>
        <translation>回复后 Ollama 保持模型加载的时长:秒数(-1 = 一直,0 = 立即卸载)或 5m、1h 这样的时长</translation>
    </message>
    <message>
        <source>Keep alive error</source>
        <translation>保持加载错误</translation>
    </message>
    <message>
        <source>seconds (-1 = keep loaded, 0 = unload at once) or a duration like 5m</source>
        <translation>秒数(-1 = 保持加载,0 = 立即卸载)或 5m 这样的时长</translation>
    </message>
    <message>
        <source>&amp;Keep alive (Ollama):</source>
        <translation>保持加载(Ollama)(&amp;K):</translation>
    </message>
    <message>
        <source>Ask for &amp;JSON</source>
        <translation>要求 &amp;JSON</translation>
    </message>
    <message>
        <source>JSON output (Ollama format)</source>
        <translation>JSON 输出(Ollama format)</translation>
    </message>
    <message>
        <source>Ollama&apos;s `format` set to `&quot;json&quot;`: every reply is one JSON object.</source>
        <translation>Ollama 的 `format` 设为 `&quot;json&quot;`:每个回复都是一个 JSON 对象。</translation>
    </message>
    <message>
        <source>JSON output (Ollama):</source>
        <translation>JSON 输出(Ollama):</translation>
    </message>
    <message>
        <source>Think (Ollama)</source>
        <translation>思考(Ollama)</translation>
    </message>
    <message>
        <source>Ollama&apos;s `think`: whether a reasoning model thinks before it answers.</source>
        <translation>Ollama 的 `think`:推理模型是否在回答前思考。</translation>
    </message>
    <message>
        <source>Th&amp;ink (Ollama):</source>
        <translation>思考(Ollama)(&amp;I):</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>Largest context window (Ollama)</source>
        <translation>最大上下文窗口(Ollama)</translation>
    </message>
    <message>
        <source>Ollama is asked for the model&apos;s own window up to this size (`num_ctx`); a larger window needs more memory.</source>
        <translation>向 Ollama 请求模型自身的窗口,最大到此大小(`num_ctx`);窗口越大,所需内存越多。</translation>
    </message>
    <message>
        <source>Largest conte&amp;xt window (Ollama):</source>
        <translation>最大上下文窗口(Ollama)(&amp;X):</translation>
    </message>
    <message>
        <source>Context window when the server does not say</source>
        <translation>服务器未告知时的上下文窗口</translation>
    </message>
    <message>
        <source>For servers that do not report a model&apos;s window (most OpenAI-compatible ones).</source>
        <translation>用于不报告模型窗口大小的服务器(多数 OpenAI 兼容服务器)。</translation>
    </message>
    <message>
        <source>Context window if &amp;unknown:</source>
        <translation>未知时的上下文窗口(&amp;U):</translation>
    </message>
    <message>
        <source>Summarise earlier messages when a chat outgrows the window</source>
        <translation>对话超出窗口时总结较早的消息</translation>
    </message>
    <message>
        <source>Summarise long chats automatically</source>
        <translation>自动总结长对话</translation>
    </message>
    <message>
        <source>Long chats:</source>
        <translation>长对话:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限制</translation>
    </message>
    <message>
        <source>Maximum history messages sent to the model</source>
        <translation>发送给模型的最多历史消息数</translation>
    </message>
    <message>
        <source>The context window decides what is sent; this caps the count too.</source>
        <translation>发送哪些内容由上下文窗口决定;此项同时限制数量。</translation>
    </message>
    <message>
        <source>Max &amp;history messages:</source>
        <translation>最多历史消息数(&amp;H):</translation>
    </message>
    <message>
        <source>Maximum agent steps per turn</source>
        <translation>每轮最多代理步骤数</translation>
    </message>
    <message>
        <source>Max &amp;steps per turn:</source>
        <translation>每轮最多步骤数(&amp;S):</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>S&amp;ystem prompt:</source>
        <translation>系统提示词(&amp;Y):</translation>
    </message>
    <message>
        <source>Keep alive (Generation tab)</source>
        <translation>保持加载(生成页)</translation>
    </message>
    <message>
        <source>Model (Generation tab)</source>
        <translation>模型(生成页)</translation>
    </message>
    <message>
        <source>Enter or choose a model</source>
        <translation>输入或选择模型</translation>
    </message>
</context>
<context>
    <name>HistoryDock</name>
    <message>
        <source>Show or hide the chat history</source>
        <translation>显示或隐藏对话历史</translation>
    </message>
    <message>
        <source>&amp;Search chats</source>
        <translation>搜索对话(&amp;S)</translation>
    </message>
    <message>
        <source>Go to the chat history&apos;s search (Ctrl+K); Down steps into the list, Enter opens a chat</source>
        <translation>转到对话历史的搜索框 (Ctrl+K)；按下方向键进入列表，按 Enter 打开对话</translation>
    </message>
</context>
<context>
    <name>HistoryFilter</name>
    <message>
        <source>Any time</source>
        <translation>任何时间</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Older than 30 days</source>
        <translation>30 天以前</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Filter the chats</source>
        <translation>筛选对话</translation>
    </message>
    <message>
        <source>Show only the chats with a tag, of a model or from a time</source>
        <translation>只显示带某个标签、使用某个模型或来自某段时间的对话</translation>
    </message>
    <message>
        <source>Filtered by</source>
        <translation>筛选条件</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Clear the filter</source>
        <translation>清除筛选</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>&amp;Tag</source>
        <translation>标签(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Date</source>
        <translation>日期(&amp;D)</translation>
    </message>
    <message>
        <source>Filter:</source>
        <translation>筛选：</translation>
    </message>
</context>
<context>
    <name>HistoryLabels</name>
    <message>
        <source>&amp;Pin to top</source>
        <translation>置顶(&amp;P)</translation>
    </message>
    <message>
        <source>Keep this chat at the top of the list</source>
        <translation>将此对话保持在列表顶部</translation>
    </message>
    <message>
        <source>&amp;Tags</source>
        <translation>标签(&amp;T)</translation>
    </message>
    <message>
        <source>Un&amp;pin</source>
        <translation>取消置顶(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;New tag…</source>
        <translation>新建标签(&amp;N)…</translation>
    </message>
    <message>
        <source>New tag</source>
        <translation>新建标签</translation>
    </message>
    <message>
        <source>Tag this chat with:</source>
        <translation>为此对话添加标签：</translation>
    </message>
    <message>
        <source>Tagged “{tag}”.</source>
        <translation>已添加标签“{tag}”。</translation>
    </message>
    <message>
        <source>Tag “{tag}” removed.</source>
        <translation>已移除标签“{tag}”。</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>Rename the selected chat</source>
        <translation>重命名所选对话</translation>
    </message>
    <message>
        <source>Delete the selected chat</source>
        <translation>删除所选对话</translation>
    </message>
</context>
<context>
    <name>Import</name>
    <message>
        <source>Import chats</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Reading {name}…</source>
        <translation>正在读取 {name}…</translation>
    </message>
    <message>
        <source>What the file holds</source>
        <translation>文件内容</translation>
    </message>
    <message>
        <source>Import progress</source>
        <translation>导入进度</translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation>导入(&amp;I)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Chat {done} of {total}</source>
        <translation>第 {done} 个对话，共 {total} 个</translation>
    </message>
    <message>
        <source>{app}: {chats}, {messages}</source>
        <translation>{app}：{chats}，{messages}</translation>
    </message>
    <message>
        <source>{n} chat</source>
        <translation>{n} 个对话</translation>
    </message>
    <message>
        <source>{n} chats</source>
        <translation>{n} 个对话</translation>
    </message>
    <message>
        <source>{n} message</source>
        <translation>{n} 条消息</translation>
    </message>
    <message>
        <source>{n} messages</source>
        <translation>{n} 条消息</translation>
    </message>
    <message>
        <source>From {path}</source>
        <translation>来自 {path}</translation>
    </message>
    <message>
        <source>{n} chat has branches (regenerated or edited messages); they are kept.</source>
        <translation>{n} 个对话有分支（重新生成或编辑过的消息）；分支会被保留。</translation>
    </message>
    <message>
        <source>{n} chats have branches (regenerated or edited messages); they are kept.</source>
        <translation>{n} 个对话有分支（重新生成或编辑过的消息）；分支会被保留。</translation>
    </message>
    <message>
        <source>Nothing new: every chat and message in it is already in your history.</source>
        <translation>没有新内容：其中的所有对话和消息都已在您的历史记录中。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>{n} new chat</source>
        <translation>{n} 个新对话</translation>
    </message>
    <message>
        <source>{n} new chats</source>
        <translation>{n} 个新对话</translation>
    </message>
    <message>
        <source>new messages in {n} chat imported before</source>
        <translation>之前导入的 {n} 个对话中的新消息</translation>
    </message>
    <message>
        <source>new messages in {n} chats imported before</source>
        <translation>之前导入的 {n} 个对话中的新消息</translation>
    </message>
    <message>
        <source>Will add: {what} ({messages} in all).</source>
        <translation>将添加：{what}（共 {messages}）。</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>This file can&apos;t be imported</source>
        <translation>无法导入此文件</translation>
    </message>
    <message>
        <source>Can&apos;t import {path}: {reason}. Nothing was imported.</source>
        <translation>无法导入 {path}：{reason}。未导入任何内容。</translation>
    </message>
    <message>
        <source>Importing {chats}…</source>
        <translation>正在导入 {chats}…</translation>
    </message>
    <message>
        <source>Import stopped</source>
        <translation>导入已停止</translation>
    </message>
    <message>
        <source>Nothing was imported.</source>
        <translation>未导入任何内容。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Imported {chats} and new messages into {updated} ({messages}).</source>
        <translation>已导入 {chats}，并向 {updated} 导入了新消息（{messages}）。</translation>
    </message>
    <message>
        <source>Imported {chats} ({messages}).</source>
        <translation>已导入 {chats}（{messages}）。</translation>
    </message>
    <message>
        <source>JSON, every branch, re-importable (*.json)</source>
        <translation>JSON，包含所有分支，可重新导入 (*.json)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>Export all chats</source>
        <translation>导出所有对话</translation>
    </message>
</context>
<context>
    <name>KeysEditor</name>
    <message>
        <source>API keys (masked)</source>
        <translation>API 密钥(已遮盖)</translation>
    </message>
    <message>
        <source>Paste a new API key</source>
        <translation>粘贴新的 API 密钥</translation>
    </message>
    <message>
        <source>New API key</source>
        <translation>新 API 密钥</translation>
    </message>
    <message>
        <source>A&amp;dd key</source>
        <translation>添加密钥(&amp;D)</translation>
    </message>
    <message>
        <source>Add the API key</source>
        <translation>添加该 API 密钥</translation>
    </message>
    <message>
        <source>Re&amp;move key</source>
        <translation>移除密钥(&amp;M)</translation>
    </message>
    <message>
        <source>Remove the selected API key</source>
        <translation>移除所选 API 密钥</translation>
    </message>
    <message>
        <source>Reading keys…</source>
        <translation>正在读取密钥…</translation>
    </message>
    <message>
        <source>Where the API keys live</source>
        <translation>API 密钥的存放位置</translation>
    </message>
    <message>
        <source>not saved yet — Save keeps it in: {save_target}</source>
        <translation>尚未保存 — 保存后存放在:{save_target}</translation>
    </message>
    <message>
        <source>{key}    (environment: OPENAI_API_KEY)</source>
        <translation>{key}    (环境变量:OPENAI_API_KEY)</translation>
    </message>
    <message>
        <source>Read from the OPENAI_API_KEY environment variable; change it there.</source>
        <translation>从 OPENAI_API_KEY 环境变量读取;请在那里修改。</translation>
    </message>
</context>
<context>
    <name>KvRows</name>
    <message>
        <source>No {what}s.</source>
        <translation>没有{what}。</translation>
    </message>
    <message>
        <source>Add {what}</source>
        <translation>添加{what}</translation>
    </message>
    <message>
        <source>Add an {what}</source>
        <translation>添加{what}</translation>
    </message>
    <message>
        <source>Add a {what}</source>
        <translation>添加{what}</translation>
    </message>
    <message>
        <source>{what} {index} name</source>
        <translation>{what} {index} 名称</translation>
    </message>
    <message>
        <source>{what} {index} value</source>
        <translation>{what} {index} 值</translation>
    </message>
    <message>
        <source>Secret</source>
        <translation>机密</translation>
    </message>
    <message>
        <source>Keep the value in the system keyring, not in the settings file</source>
        <translation>将值保存在系统密钥环中,而不是设置文件中</translation>
    </message>
    <message>
        <source>{what} {index} is a secret</source>
        <translation>{what} {index} 是机密</translation>
    </message>
    <message>
        <source>Remove this {what}</source>
        <translation>移除此{what}</translation>
    </message>
    <message>
        <source>Remove {what} {index}</source>
        <translation>移除{what} {index}</translation>
    </message>
    <message>
        <source>set — type a new value to replace it</source>
        <translation>已设置 — 输入新值以替换</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
</context>
<context>
    <name>LearnedBox</name>
    <message>
        <source>OpenAI-compatible</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>Model and server</source>
        <translation>模型和服务器</translation>
    </message>
    <message>
        <source>What was learned</source>
        <translation>学到的内容</translation>
    </message>
    <message>
        <source>What the app learned from each model&apos;s answers, so that it stops asking in a way that does not work. Tools go off for a model only after it answered nothing when offered them twice in a row (or its server said it cannot use them). Forget it after upgrading the server or the model: the next message offers the tools again. Applies at once.</source>
        <translation>应用从每个模型的回答中学到的内容,以免继续用行不通的方式提问。只有当模型连续两次在提供工具时什么都没回答(或其服务器表示无法使用工具)时,才会为它关闭工具。升级服务器或模型后请忘记这些内容:下一条消息会再次提供工具。立即生效。</translation>
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
        <translation>工具活动</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新建对话(&amp;N)</translation>
    </message>
    <message>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Focus the &amp;input</source>
        <translation>聚焦到输入框(&amp;I)</translation>
    </message>
    <message>
        <source>Refresh &amp;models</source>
        <translation>刷新模型列表(&amp;M)</translation>
    </message>
    <message>
        <source>List the server&apos;s models again</source>
        <translation>重新列出服务器的模型</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <source>Summarise &amp;earlier messages</source>
        <translation>总结较早的消息(&amp;E)</translation>
    </message>
    <message>
        <source>The model summarises the chat so far; the summary is sent instead</source>
        <translation>由模型总结到目前为止的对话;之后发送摘要代替原消息</translation>
    </message>
    <message>
        <source>&amp;Tool activity</source>
        <translation>工具活动(&amp;T)</translation>
    </message>
    <message>
        <source>Show or hide the tool activity sidebar (Ctrl+Shift+T)</source>
        <translation>显示或隐藏工具活动侧栏(Ctrl+Shift+T)</translation>
    </message>
    <message>
        <source>Show or hide the tool activity sidebar</source>
        <translation>显示或隐藏工具活动侧栏</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Open the &amp;log folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;About Desktop Agent</source>
        <translation>关于 Desktop Agent(&amp;A)</translation>
    </message>
    <message>
        <source>Backend and model</source>
        <translation>后端和模型</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>{label} at {where}, model {model}</source>
        <translation>{where} 上的 {label},模型 {model}</translation>
    </message>
    <message>
        <source>Starting up — your message is sent in a moment…</source>
        <translation>正在启动 — 你的消息稍后发送…</translation>
    </message>
    <message>
        <source>Wait for the answer, or press Stop (Esc).</source>
        <translation>请等待回答,或按“停止”(Esc)。</translation>
    </message>
    <message>
        <source>start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <source>open that chat</source>
        <translation>打开那个对话</translation>
    </message>
    <message>
        <source>Settings saved; they apply from the next message.</source>
        <translation>设置已保存;从下一条消息起生效。</translation>
    </message>
    <message>
        <source>About {APP_DISPLAY_NAME}</source>
        <translation>关于 {APP_DISPLAY_NAME}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{APP_DISPLAY_NAME}&lt;/b&gt; {version}&lt;br&gt;A desktop assistant for Ollama and OpenAI-compatible servers, with tools.&lt;br&gt;&lt;br&gt;Log file: {log_file}</source>
        <translation>&lt;b&gt;{APP_DISPLAY_NAME}&lt;/b&gt; {version}&lt;br&gt;适用于 Ollama 和 OpenAI 兼容服务器的桌面助手,支持工具。&lt;br&gt;&lt;br&gt;日志文件:{log_file}</translation>
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
    <name>McpBundle</name>
    <message>
        <source>Install MCP bundle</source>
        <translation>安装 MCP 包</translation>
    </message>
    <message>
        <source>MCP bundles (*.mcpb *.dxt);;All files (*)</source>
        <translation>MCP 包 (*.mcpb *.dxt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>{name} cannot be installed: {why}. Nothing was installed.</source>
        <translation>无法安装 {name}：{why}。未安装任何内容。</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>正在打开 {name}…</translation>
    </message>
    <message>
        <source>Installed {title} {version}: its tools are offered once it has started.</source>
        <translation>已安装 {title} {version}：它启动后即会提供其工具。</translation>
    </message>
    <message>
        <source>Install MCP &amp;bundle…</source>
        <translation>安装 MCP 包(&amp;B)…</translation>
    </message>
    <message>
        <source>Install an MCP server packaged as a .mcpb bundle</source>
        <translation>安装以 .mcpb 包形式打包的 MCP 服务器</translation>
    </message>
</context>
<context>
    <name>McpInputs</name>
    <message>
        <source>Values for the imported servers</source>
        <translation>导入服务器所需的值</translation>
    </message>
    <message>
        <source>{source} asks for these values. They are kept in the system keyring when you press Save, never in the settings file. Leave one empty to set it later.</source>
        <translation>{source} 需要这些值。按“保存”后，它们会保存在系统密钥环中，绝不会写入设置文件。留空的值可以稍后再设置。</translation>
    </message>
</context>
<context>
    <name>McpOAuth</name>
    <message>
        <source>the sign-in was cancelled; nothing was saved</source>
        <translation>登录已取消；未保存任何内容</translation>
    </message>
    <message>
        <source>the browser did not come back within {minutes} minutes</source>
        <translation>浏览器在 {minutes} 分钟内没有返回</translation>
    </message>
    <message>
        <source>this server needs a sign-in: press Sign in… in Settings → MCP servers, or run `desktop-agent mcp login {name}`</source>
        <translation>此服务器需要登录：请在 设置 → MCP 服务器 中点击“登录…”，或运行 `desktop-agent mcp login {name}`</translation>
    </message>
    <message>
        <source>the server refused the credentials it was given (HTTP 401 Unauthorized): check its Authorization header in Settings → MCP servers</source>
        <translation>服务器拒绝了所提供的凭据（HTTP 401 Unauthorized）：请在 设置 → MCP 服务器 中检查它的 Authorization 请求头</translation>
    </message>
    <message>
        <source>the sign-in was refused: the answer came from {got}, not from the authorization server {expected} the server named (a possible mix-up attack); nothing was saved</source>
        <translation>登录被拒绝：响应来自 {got}，而不是服务器指定的授权服务器 {expected}（可能是混淆攻击）；未保存任何内容</translation>
    </message>
    <message>
        <source>the sign-in was refused: the authorization server&apos;s metadata names another issuer ({text})</source>
        <translation>登录被拒绝：授权服务器的元数据指定了另一个签发者（{text}）</translation>
    </message>
    <message>
        <source>the authorization server would not register the app ({text}); paste a client id for this server in Settings → MCP servers</source>
        <translation>授权服务器不允许注册本应用（{text}）；请在 设置 → MCP 服务器 中为此服务器粘贴一个客户端 ID</translation>
    </message>
    <message>
        <source>the sign-in failed: {text}</source>
        <translation>登录失败：{text}</translation>
    </message>
    <message>
        <source>can&apos;t reach the server at {url}</source>
        <translation>无法连接到位于 {url} 的服务器</translation>
    </message>
    <message>
        <source>the sign-in failed: {kind}: {text}</source>
        <translation>登录失败：{kind}：{text}</translation>
    </message>
    <message>
        <source>only a remote (Streamable HTTP) server can be signed in to</source>
        <translation>只有远程（Streamable HTTP）服务器可以登录</translation>
    </message>
    <message>
        <source>the authorization server said no: {error}{detail}</source>
        <translation>授权服务器拒绝了：{error}{detail}</translation>
    </message>
    <message>
        <source>the authorization server sent the browser back without a code</source>
        <translation>授权服务器让浏览器返回时没有附带授权码</translation>
    </message>
    <message>
        <source>{name} does not ask for a sign-in: it works without one</source>
        <translation>{name} 不需要登录：无需登录即可使用</translation>
    </message>
    <message>
        <source>signed in to {name}; tools it offers: {n}</source>
        <translation>已登录 {name}；它提供的工具：{n}</translation>
    </message>
    <message>
        <source>{name} was not signed in</source>
        <translation>{name} 未登录</translation>
    </message>
    <message>
        <source>signed out of {name} and revoked its tokens</source>
        <translation>已退出 {name} 并撤销了其令牌</translation>
    </message>
    <message>
        <source>signed out of {name} (the authorization server did not confirm the revocation)</source>
        <translation>已退出 {name}（授权服务器没有确认撤销）</translation>
    </message>
    <message>
        <source>signed out of {name}</source>
        <translation>已退出 {name}</translation>
    </message>
</context>
<context>
    <name>McpPage</name>
    <message>
        <source>&amp;Use MCP servers</source>
        <translation>使用 MCP 服务器(&amp;U)</translation>
    </message>
    <message>
        <source>Use MCP servers</source>
        <translation>使用 MCP 服务器</translation>
    </message>
    <message>
        <source>Model Context Protocol servers give the model more tools (files, git, databases, browsers…). They start in the background; each of their tools asks before it runs unless a rule allows it.</source>
        <translation>Model Context Protocol(MCP)服务器为模型提供更多工具(文件、git、数据库、浏览器…)。它们在后台启动;除非有规则允许,其每个工具运行前都会先询问。</translation>
    </message>
    <message>
        <source>Where MCP secrets are kept</source>
        <translation>MCP 机密的存放位置</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>A&amp;dd…</source>
        <translation>添加(&amp;D)…</translation>
    </message>
    <message>
        <source>Add an MCP server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Edit the selected MCP server</source>
        <translation>编辑所选 MCP 服务器</translation>
    </message>
    <message>
        <source>Re&amp;move</source>
        <translation>移除(&amp;M)</translation>
    </message>
    <message>
        <source>Remove the selected MCP server</source>
        <translation>移除所选 MCP 服务器</translation>
    </message>
    <message>
        <source>Res&amp;tart</source>
        <translation>重新启动(&amp;T)</translation>
    </message>
    <message>
        <source>Restart the selected MCP server</source>
        <translation>重新启动所选 MCP 服务器</translation>
    </message>
    <message>
        <source>&amp;Import from another app…</source>
        <translation>从其他应用导入(&amp;I)…</translation>
    </message>
    <message>
        <source>Import MCP servers from Claude Desktop, VS Code, Cursor or Zed</source>
        <translation>从 Claude Desktop、VS Code、Cursor 或 Zed 导入 MCP 服务器</translation>
    </message>
    <message>
        <source>Claude Desktop&apos;s claude_desktop_config.json, VS Code&apos;s or Cursor&apos;s mcp.json, Zed&apos;s settings.json</source>
        <translation>Claude Desktop 的 claude_desktop_config.json、VS Code 或 Cursor 的 mcp.json、Zed 的 settings.json</translation>
    </message>
    <message>
        <source>Install &amp;bundle…</source>
        <translation>安装包(&amp;B)…</translation>
    </message>
    <message>
        <source>Install an MCP server packaged as a .mcpb bundle</source>
        <translation>安装以 .mcpb 包形式打包的 MCP 服务器</translation>
    </message>
    <message>
        <source>MCP servers error</source>
        <translation>MCP 服务器错误</translation>
    </message>
    <message>
        <source>Import result</source>
        <translation>导入结果</translation>
    </message>
    <message>
        <source>Selected server</source>
        <translation>所选服务器</translation>
    </message>
    <message>
        <source>Server status</source>
        <translation>服务器状态</translation>
    </message>
    <message>
        <source>Last lines of its output:</source>
        <translation>其输出的最后几行:</translation>
    </message>
    <message>
        <source>The server&apos;s last output lines</source>
        <translation>服务器最后的输出行</translation>
    </message>
    <message>
        <source>Secrets (kept in the system keyring):</source>
        <translation>机密(保存在系统密钥环中):</translation>
    </message>
    <message>
        <source>The server&apos;s secrets</source>
        <translation>服务器的机密</translation>
    </message>
    <message>
        <source>Re&amp;place…</source>
        <translation>替换(&amp;P)…</translation>
    </message>
    <message>
        <source>Replace the selected secret</source>
        <translation>替换所选机密</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>清除(&amp;L)</translation>
    </message>
    <message>
        <source>Clear the selected secret</source>
        <translation>清除所选机密</translation>
    </message>
    <message>
        <source>MCP servers (MCP servers tab)</source>
        <translation>MCP 服务器(MCP 服务器页)</translation>
    </message>
    <message>
        <source>MCP servers are off</source>
        <translation>MCP 服务器已关闭</translation>
    </message>
    <message>
        <source>MCP servers are off (tick Use MCP servers).</source>
        <translation>MCP 服务器已关闭(勾选“使用 MCP 服务器”)。</translation>
    </message>
    <message>
        <source>disabled — Save to stop it</source>
        <translation>已停用 — 保存后停止</translation>
    </message>
    <message>
        <source>Disabled here: press Save to stop it.</source>
        <translation>已在此停用:按“保存”停止它。</translation>
    </message>
    <message>
        <source>Disabled: it is not started (tick it to use it).</source>
        <translation>已停用:不会启动(勾选以使用)。</translation>
    </message>
    <message>
        <source>not started yet</source>
        <translation>尚未启动</translation>
    </message>
    <message>
        <source>Not started yet (servers start after the window shows).</source>
        <translation>尚未启动(服务器在窗口显示后启动)。</translation>
    </message>
    <message>
        <source>not started — Save to start it</source>
        <translation>未启动 — 保存后启动</translation>
    </message>
    <message>
        <source>Not started: press Save to start it.</source>
        <translation>未启动:按“保存”启动它。</translation>
    </message>
    <message>
        <source>changed — Save to restart it</source>
        <translation>已更改 — 保存后重新启动</translation>
    </message>
    <message>
        <source>Changed here: press Save to restart it with the changes.</source>
        <translation>已在此更改:按“保存”以新设置重新启动。</translation>
    </message>
    <message>
        <source>failed — {error}</source>
        <translation>失败 — {error}</translation>
    </message>
    <message>
        <source>Failed: {error}</source>
        <translation>失败:{error}</translation>
    </message>
    <message>
        <source>Ready: %n tool</source>
        <translation>就绪:%n 个工具</translation>
    </message>
    <message>
        <source>Ready: %n tools</source>
        <translation>就绪:%n 个工具</translation>
    </message>
    <message>
        <source>It speaks MCP {version}.</source>
        <translation>它使用 MCP {version}。</translation>
    </message>
    <message>
        <source>Stopped (Restart starts it again).</source>
        <translation>已停止(“重新启动”可再次启动)。</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>environment variable</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>set (saved when you press Save)</source>
        <translation>已设置(按“保存”时保存)</translation>
    </message>
    <message>
        <source>cleared (when you press Save)</source>
        <translation>已清除(按“保存”时生效)</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Replace secret</source>
        <translation>替换机密</translation>
    </message>
    <message>
        <source>New value of {name}:</source>
        <translation>{name} 的新值:</translation>
    </message>
    <message>
        <source>Secrets (kept for this session only: no keyring):</source>
        <translation>机密(仅在本次会话中保留:没有密钥环):</translation>
    </message>
    <message>
        <source>Import MCP servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <source>JSON files (*.json *.jsonc);;All files (*)</source>
        <translation>JSON 文件 (*.json *.jsonc);;所有文件 (*)</translation>
    </message>
    <message>
        <source>From {name} ({app}):
{lines}
Press Save to keep the servers and start them.</source>
        <translation>来自 {name}（{app}）：
{lines}
按“保存”保留这些服务器并启动它们。</translation>
    </message>
    <message>
        <source>Fix the servers listed first: {exc}</source>
        <translation>请先修正列出的服务器:{exc}</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Nothing was imported from {name}: {why}</source>
        <translation>未从 {name} 导入任何内容:{why}</translation>
    </message>
    <message>
        <source>this session only (there is no keyring)</source>
        <translation>仅本次会话(没有密钥环)</translation>
    </message>
    <message>
        <source>the system keyring</source>
        <translation>系统密钥环</translation>
    </message>
    <message>
        <source>header</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>argument</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>the {what} {name} of {server_name} goes to {place} when you press Save, not to the settings file</source>
        <translation>按“保存”时,{server_name} 的{what} {name} 将存入{place},而不是设置文件</translation>
    </message>
    <message>
        <source>skipped {line}</source>
        <translation>已跳过 {line}</translation>
    </message>
    <message>
        <source>{name} could not be restarted: {error}</source>
        <translation>{name} 无法重新启动:{error}</translation>
    </message>
</context>
<context>
    <name>McpServerEditor</name>
    <message>
        <source>Edit MCP server</source>
        <translation>编辑 MCP 服务器</translation>
    </message>
    <message>
        <source>Add MCP server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>Server name</source>
        <translation>服务器名称</translation>
    </message>
    <message>
        <source>e.g. github</source>
        <translation>例如 github</translation>
    </message>
    <message>
        <source>Server name error</source>
        <translation>服务器名称错误</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N):</translation>
    </message>
    <message>
        <source>Letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;; its tools are named after it.</source>
        <translation>字母、数字、&apos;.&apos;、&apos;_&apos; 和 &apos;-&apos;;其工具以此命名。</translation>
    </message>
    <message>
        <source>&amp;Program on this computer (stdio)</source>
        <translation>本机上的程序(stdio)(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Remote server (Streamable HTTP)</source>
        <translation>远程服务器(Streamable HTTP)(&amp;R)</translation>
    </message>
    <message>
        <source>Server type error</source>
        <translation>服务器类型错误</translation>
    </message>
    <message>
        <source>Type:</source>
        <translation>类型:</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>e.g. npx, uvx, /usr/local/bin/my-server</source>
        <translation>例如 npx、uvx、/usr/local/bin/my-server</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>浏览(&amp;W)…</translation>
    </message>
    <message>
        <source>Command error</source>
        <translation>命令错误</translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation>命令(&amp;C):</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>e.g. -y @modelcontextprotocol/server-filesystem ~/Documents</source>
        <translation>例如 -y @modelcontextprotocol/server-filesystem ~/Documents</translation>
    </message>
    <message>
        <source>Arguments error</source>
        <translation>参数错误</translation>
    </message>
    <message>
        <source>&amp;Arguments:</source>
        <translation>参数(&amp;A):</translation>
    </message>
    <message>
        <source>Separated by spaces; put an argument that has spaces in quotes.</source>
        <translation>以空格分隔;含空格的参数请加引号。</translation>
    </message>
    <message>
        <source>environment variable</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Environment error</source>
        <translation>环境变量错误</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>环境变量(&amp;E):</translation>
    </message>
    <message>
        <source>Tick Secret for a token or key: its value goes to the system keyring, not the settings file.</source>
        <translation>令牌或密钥请勾选“机密”:其值存入系统密钥环,而不是设置文件。</translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作文件夹</translation>
    </message>
    <message>
        <source>(the app&apos;s own)</source>
        <translation>(应用自己的)</translation>
    </message>
    <message>
        <source>C&amp;hoose…</source>
        <translation>选择(&amp;H)…</translation>
    </message>
    <message>
        <source>Working &amp;folder:</source>
        <translation>工作文件夹(&amp;F):</translation>
    </message>
    <message>
        <source>Server URL</source>
        <translation>服务器 URL</translation>
    </message>
    <message>
        <source>Server URL error</source>
        <translation>服务器 URL 错误</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>header</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>Headers error</source>
        <translation>请求头错误</translation>
    </message>
    <message>
        <source>&amp;Headers:</source>
        <translation>请求头(&amp;H):</translation>
    </message>
    <message>
        <source>e.g. Authorization = Bearer …, ticked Secret.</source>
        <translation>例如 Authorization = Bearer …,并勾选“机密”。</translation>
    </message>
    <message>
        <source>Choose the server&apos;s program</source>
        <translation>选择服务器程序</translation>
    </message>
    <message>
        <source>Choose the working folder</source>
        <translation>选择工作文件夹</translation>
    </message>
    <message>
        <source>There is already a server called {name}.</source>
        <translation>已有名为 {name} 的服务器。</translation>
    </message>
    <message>
        <source>Type the command that starts the server.</source>
        <translation>请输入启动服务器的命令。</translation>
    </message>
    <message>
        <source>Type the server&apos;s URL, e.g. https://example.com/mcp.</source>
        <translation>请输入服务器的 URL,例如 https://example.com/mcp。</translation>
    </message>
    <message>
        <source>The arguments cannot be read ({exc}): close every quote.</source>
        <translation>无法读取参数({exc}):请闭合所有引号。</translation>
    </message>
    <message>
        <source>remote: {url}</source>
        <translation>远程:{url}</translation>
    </message>
    <message>
        <source>stdio: {command}</source>
        <translation>stdio:{command}</translation>
    </message>
</context>
<context>
    <name>McpSignIn</name>
    <message>
        <source>Sign-in status</source>
        <translation>登录状态</translation>
    </message>
    <message>
        <source>Sign &amp;in…</source>
        <translation>登录(&amp;I)…</translation>
    </message>
    <message>
        <source>Sign in to the selected MCP server</source>
        <translation>登录所选的 MCP 服务器</translation>
    </message>
    <message>
        <source>Cancel sign-in</source>
        <translation>取消登录</translation>
    </message>
    <message>
        <source>Sign &amp;out</source>
        <translation>退出登录(&amp;O)</translation>
    </message>
    <message>
        <source>Sign out of the selected MCP server</source>
        <translation>退出所选的 MCP 服务器</translation>
    </message>
    <message>
        <source>Client ID:</source>
        <translation>客户端 ID：</translation>
    </message>
    <message>
        <source>optional: one you registered with the server</source>
        <translation>可选：您在该服务器注册的客户端 ID</translation>
    </message>
    <message>
        <source>OAuth client ID registered for this server</source>
        <translation>为此服务器注册的 OAuth 客户端 ID</translation>
    </message>
    <message>
        <source>Sign-in result</source>
        <translation>登录结果</translation>
    </message>
    <message>
        <source>Not signed in. If the server asks for a sign-in, press Sign in: your browser opens at its sign-in page.</source>
        <translation>未登录。如果服务器要求登录，请点击“登录”：浏览器会打开它的登录页面。</translation>
    </message>
    <message>
        <source>Waiting for the browser… Sign in there and allow access, then come back here.</source>
        <translation>正在等待浏览器… 请在浏览器中登录并允许访问，然后回到这里。</translation>
    </message>
    <message>
        <source>Signed in at {issuer}. The tokens are in the system keyring and renewed on their own.</source>
        <translation>已在 {issuer} 登录。令牌保存在系统密钥环中，并会自动续期。</translation>
    </message>
    <message>
        <source>Checking the sign-in…</source>
        <translation>正在检查登录…</translation>
    </message>
    <message>
        <source>Sign &amp;in again…</source>
        <translation>重新登录(&amp;I)…</translation>
    </message>
    <message>
        <source>The sign-in failed: {error}</source>
        <translation>登录失败：{error}</translation>
    </message>
    <message>
        <source>The sign-out failed: {error}</source>
        <translation>退出登录失败：{error}</translation>
    </message>
</context>
<context>
    <name>McpStatus</name>
    <message>
        <source>MCP servers status</source>
        <translation>MCP 服务器状态</translation>
    </message>
    <message>
        <source>MCP: {n_failed} of %n servers failed</source>
        <translation>MCP:%n 个服务器中有 {n_failed} 个失败</translation>
    </message>
    <message>
        <source>MCP: %n server ready</source>
        <translation>MCP:%n 个服务器就绪</translation>
    </message>
    <message>
        <source>MCP: %n servers ready</source>
        <translation>MCP:%n 个服务器就绪</translation>
    </message>
    <message>
        <source>MCP: starting…</source>
        <translation>MCP:正在启动…</translation>
    </message>
    <message>
        <source>MCP: {n_ready} of {n_states} servers ready</source>
        <translation>MCP:{n_states} 个服务器中 {n_ready} 个就绪</translation>
    </message>
    <message>
        <source>
Click to open Settings → MCP servers.</source>
        <translation>
点击打开 设置 → MCP 服务器。</translation>
    </message>
</context>
<context>
    <name>ModelCapabilities</name>
    <message>
        <source>tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>vision</source>
        <translation>视觉</translation>
    </message>
    <message>
        <source>no tools</source>
        <translation>无工具</translation>
    </message>
    <message>
        <source>The server does not say what {name} can do.</source>
        <translation>服务器没有说明 {name} 能做什么。</translation>
    </message>
    <message>
        <source>{name}, as its server says:</source>
        <translation>{name},据其服务器所述:</translation>
    </message>
    <message>
        <source>Context window: {context_length:,} tokens</source>
        <translation>上下文窗口:{context_length:,} 个词元</translation>
    </message>
    <message>
        <source>What the model can do</source>
        <translation>模型的能力</translation>
    </message>
    <message>
        <source>Offer tools or thinking to this model anyway</source>
        <translation>仍然向此模型提供工具或思考</translation>
    </message>
    <message>
        <source>Model capability options</source>
        <translation>模型能力选项</translation>
    </message>
    <message>
        <source>Offer tools anyway</source>
        <translation>仍然提供工具</translation>
    </message>
    <message>
        <source>Ask it to think anyway</source>
        <translation>仍然要求它思考</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>OpenAI-compatible</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>The model to chat with (listed from the server)</source>
        <translation>用于对话的模型(从服务器列出)</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Which kind of server answers</source>
        <translation>由哪种服务器回答</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <source>{name} is not offered by this server — pick one</source>
        <translation>此服务器不提供 {name} — 请选择一个</translation>
    </message>
</context>
<context>
    <name>Models</name>
    <message>
        <source>Pinned</source>
        <translation>已置顶</translation>
    </message>
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
    <message>
        <source>Tags: {tags}</source>
        <translation>标签：{tags}</translation>
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
    <name>NoteLine</name>
    <message>
        <source>Chat note: {text}</source>
        <translation>对话备注：{text}</translation>
    </message>
    <message>
        <source>{text}
{when} · not sent to the model</source>
        <translation>{text}
{when} · 不会发送给模型</translation>
    </message>
</context>
<context>
    <name>OllamaPage</name>
    <message>
        <source>Ollama host URL</source>
        <translation>Ollama 主机 URL</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>测试连接(&amp;T)</translation>
    </message>
    <message>
        <source>Test the Ollama connection</source>
        <translation>测试 Ollama 连接</translation>
    </message>
    <message>
        <source>Ollama host error</source>
        <translation>Ollama 主机错误</translation>
    </message>
    <message>
        <source>Ollama connection status</source>
        <translation>Ollama 连接状态</translation>
    </message>
    <message>
        <source>Ollama host note</source>
        <translation>Ollama 主机说明</translation>
    </message>
    <message>
        <source>Ollama host in use</source>
        <translation>正在使用的 Ollama 主机</translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation>主机(&amp;H):</translation>
    </message>
    <message>
        <source>Answer timeout in seconds</source>
        <translation>回答超时(秒)</translation>
    </message>
    <message>
        <source>Seconds to wait for the first data of an answer before giving up (it includes loading the model, which can take minutes for a large model)</source>
        <translation>放弃前等待回答首批数据的秒数(包括加载模型的时间,大模型可能需要几分钟)</translation>
    </message>
    <message>
        <source>Answer timeout error</source>
        <translation>回答超时错误</translation>
    </message>
    <message>
        <source>seconds to wait for an answer to start (model loading), e.g. 300</source>
        <translation>等待回答开始的秒数(加载模型),例如 300</translation>
    </message>
    <message>
        <source>Ans&amp;wer timeout (s):</source>
        <translation>回答超时(秒)(&amp;W):</translation>
    </message>
    <message>
        <source>Wait for next data in seconds</source>
        <translation>等待后续数据(秒)</translation>
    </message>
    <message>
        <source>Once an answer streams: seconds without new data (keep-alives do not count) before the turn ends with the partial answer kept and &quot;the server stopped responding&quot;</source>
        <translation>回答开始流式传输后:没有新数据(保活消息不算)多少秒后结束本轮,保留已收到的部分回答,并提示“服务器停止响应”</translation>
    </message>
    <message>
        <source>Wait for next data error</source>
        <translation>等待后续数据错误</translation>
    </message>
    <message>
        <source>seconds of silence mid-answer before it stops, e.g. 60</source>
        <translation>回答中途静默多少秒后停止,例如 60</translation>
    </message>
    <message>
        <source>Wait for ne&amp;xt data (s):</source>
        <translation>等待后续数据(秒)(&amp;X):</translation>
    </message>
    <message>
        <source>Host (Ollama tab)</source>
        <translation>主机(Ollama 页)</translation>
    </message>
    <message>
        <source>Answer timeout (Ollama tab)</source>
        <translation>回答超时(Ollama 页)</translation>
    </message>
    <message>
        <source>Wait for next data (Ollama tab)</source>
        <translation>等待后续数据(Ollama 页)</translation>
    </message>
    <message>
        <source>Enter the Ollama host, e.g. http://localhost:11434</source>
        <translation>请输入 Ollama 主机,例如 http://localhost:11434</translation>
    </message>
    <message>
        <source>Enter a valid host URL first.</source>
        <translation>请先输入有效的主机 URL。</translation>
    </message>
    <message>
        <source>Connected to Ollama {version} at {host} — %n model installed.</source>
        <translation>已连接到 {host} 上的 Ollama {version} — 已安装 %n 个模型。</translation>
    </message>
    <message>
        <source>Connected to Ollama {version} at {host} — %n models installed.</source>
        <translation>已连接到 {host} 上的 Ollama {version} — 已安装 %n 个模型。</translation>
    </message>
    <message>
        <source>Connecting to {host}…</source>
        <translation>正在连接 {host}…</translation>
    </message>
    <message>
        <source>{error} Installed models are listed once it answers.</source>
        <translation>{error} 服务器响应后会列出已安装的模型。</translation>
    </message>
    <message>
        <source>{connected} “{old}” is not installed: chats will use {new} (after Save), or pull {old} below.</source>
        <translation>{connected} “{old}”未安装:对话将使用 {new}(保存后),或在下方拉取 {old}。</translation>
    </message>
    <message>
        <source>Chats will use {name} (after Save).</source>
        <translation>对话将使用 {name}(保存后)。</translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete the model “{name}” from the Ollama server?
It has to be pulled again to be used.</source>
        <translation>从 Ollama 服务器删除模型“{name}”?
之后要使用需重新拉取。</translation>
    </message>
    <message>
        <source>Deleted {name}.</source>
        <translation>已删除 {name}。</translation>
    </message>
</context>
<context>
    <name>OpenaiPage</name>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>Provider preset</source>
        <translation>提供方预设</translation>
    </message>
    <message>
        <source>&amp;Preset:</source>
        <translation>预设(&amp;P):</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Base URL error</source>
        <translation>基础 URL 错误</translation>
    </message>
    <message>
        <source>Base URL in use</source>
        <translation>正在使用的基础 URL</translation>
    </message>
    <message>
        <source>&amp;Base URL:</source>
        <translation>基础 URL(&amp;B):</translation>
    </message>
    <message>
        <source>This provider needs an API &amp;key (local servers usually don&apos;t)</source>
        <translation>此提供方需要 API 密钥(本地服务器通常不需要)(&amp;K)</translation>
    </message>
    <message>
        <source>Provider needs an API key</source>
        <translation>提供方需要 API 密钥</translation>
    </message>
    <message>
        <source>API &amp;keys:</source>
        <translation>API 密钥(&amp;K):</translation>
    </message>
    <message>
        <source>Timeout in seconds</source>
        <translation>超时(秒)</translation>
    </message>
    <message>
        <source>Seconds to wait for an answer to start (connecting included)</source>
        <translation>等待回答开始的秒数(包括连接)</translation>
    </message>
    <message>
        <source>Timeout error</source>
        <translation>超时错误</translation>
    </message>
    <message>
        <source>&amp;Timeout (s):</source>
        <translation>超时(秒)(&amp;T):</translation>
    </message>
    <message>
        <source>Wait for next data in seconds</source>
        <translation>等待后续数据(秒)</translation>
    </message>
    <message>
        <source>Once an answer streams: seconds without new data (keep-alive comments do not count) before the turn ends with the partial answer kept and &quot;the server stopped responding&quot;</source>
        <translation>回答开始流式传输后:没有新数据(保活注释不算)多少秒后结束本轮,保留已收到的部分回答,并提示“服务器停止响应”</translation>
    </message>
    <message>
        <source>Wait for next data error</source>
        <translation>等待后续数据错误</translation>
    </message>
    <message>
        <source>Wait for ne&amp;xt data (s):</source>
        <translation>等待后续数据(秒)(&amp;X):</translation>
    </message>
    <message>
        <source>Retries per key</source>
        <translation>每个密钥的重试次数</translation>
    </message>
    <message>
        <source>&amp;Retries per key:</source>
        <translation>每个密钥的重试次数(&amp;R):</translation>
    </message>
    <message>
        <source>Retry interval in seconds</source>
        <translation>重试间隔(秒)</translation>
    </message>
    <message>
        <source>Retry interval error</source>
        <translation>重试间隔错误</translation>
    </message>
    <message>
        <source>Retry &amp;interval (s):</source>
        <translation>重试间隔(秒)(&amp;I):</translation>
    </message>
    <message>
        <source>Test co&amp;nnection</source>
        <translation>测试连接(&amp;N)</translation>
    </message>
    <message>
        <source>Test the OpenAI-compatible connection</source>
        <translation>测试 OpenAI 兼容连接</translation>
    </message>
    <message>
        <source>OpenAI-compatible connection status</source>
        <translation>OpenAI 兼容连接状态</translation>
    </message>
    <message>
        <source>Models the server offers</source>
        <translation>服务器提供的模型</translation>
    </message>
    <message>
        <source>Double-click a model to use it for chats</source>
        <translation>双击模型即可用于对话</translation>
    </message>
    <message>
        <source>Base URL (OpenAI-compatible tab)</source>
        <translation>基础 URL(OpenAI 兼容页)</translation>
    </message>
    <message>
        <source>Timeout (OpenAI-compatible tab)</source>
        <translation>超时(OpenAI 兼容页)</translation>
    </message>
    <message>
        <source>Wait for next data (OpenAI-compatible tab)</source>
        <translation>等待后续数据(OpenAI 兼容页)</translation>
    </message>
    <message>
        <source>Retry interval (OpenAI-compatible tab)</source>
        <translation>重试间隔(OpenAI 兼容页)</translation>
    </message>
    <message>
        <source>Enter the base URL, e.g. https://api.openai.com/v1</source>
        <translation>请输入基础 URL,例如 https://api.openai.com/v1</translation>
    </message>
    <message>
        <source>No API key for this provider: add one on the OpenAI-compatible tab, or untick &apos;needs an API key&apos; for a local server.</source>
        <translation>此提供方没有 API 密钥:请在“OpenAI 兼容”页添加一个;若是本地服务器,请取消勾选“需要 API 密钥”。</translation>
    </message>
    <message>
        <source>Fix the base URL and timeout first.</source>
        <translation>请先修正基础 URL 和超时。</translation>
    </message>
    <message>
        <source>Connected to {base_url} — %n model</source>
        <translation>已连接到 {base_url} — %n 个模型</translation>
    </message>
    <message>
        <source>Connected to {base_url} — %n models</source>
        <translation>已连接到 {base_url} — %n 个模型</translation>
    </message>
    <message>
        <source>Connecting to {base_url}…</source>
        <translation>正在连接 {base_url}…</translation>
    </message>
    <message>
        <source>{connected}. “{old}” is not on this server: chats will use {new} (after Save).</source>
        <translation>{connected}。此服务器上没有“{old}”:对话将使用 {new}(保存后)。</translation>
    </message>
    <message>
        <source>Chats will use {text} (after Save).</source>
        <translation>对话将使用 {text}(保存后)。</translation>
    </message>
</context>
<context>
    <name>Panel</name>
    <message>
        <source>Chat history</source>
        <translation>对话历史</translation>
    </message>
    <message>
        <source>Search all chats</source>
        <translation>搜索全部对话</translation>
    </message>
    <message>
        <source>Search all chats…</source>
        <translation>搜索全部对话…</translation>
    </message>
    <message>
        <source>Full-text search over every message and chat title. Enter opens the chat at the first result.</source>
        <translation>对所有消息和对话标题进行全文搜索。按 Enter 打开第一个结果所在的对话。</translation>
    </message>
    <message>
        <source>Saved chats</source>
        <translation>已保存的对话</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <source>No saved chats yet.
Your chats appear here as you talk.</source>
        <translation>还没有已保存的对话。
你的对话会在交谈时出现在这里。</translation>
    </message>
    <message>
        <source>Search result count</source>
        <translation>搜索结果数</translation>
    </message>
    <message>
        <source>History problem</source>
        <translation>历史记录问题</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Rename…</source>
        <translation>重命名(&amp;R)…</translation>
    </message>
    <message>
        <source>Export as &amp;Markdown…</source>
        <translation>导出为 &amp;Markdown…</translation>
    </message>
    <message>
        <source>Export as &amp;JSON…</source>
        <translation>导出为 &amp;JSON…</translation>
    </message>
    <message>
        <source>Export as &amp;web page…</source>
        <translation>导出为网页(&amp;W)…</translation>
    </message>
    <message>
        <source>E&amp;xport all chats…</source>
        <translation>导出所有对话(&amp;X)…</translation>
    </message>
    <message>
        <source>Every chat in one file: JSON (every branch, re-importable), Markdown or a web page</source>
        <translation>将所有对话导出到一个文件：JSON（包含所有分支，可重新导入）、Markdown 或网页</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Import chats…</source>
        <translation>导入对话(&amp;I)…</translation>
    </message>
    <message>
        <source>Import chats: a Desktop Agent export, ChatGPT&apos;s conversations.json or an Open WebUI export</source>
        <translation>导入对话：Desktop Agent 导出文件、ChatGPT 的 conversations.json 或 Open WebUI 导出文件</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Import chat</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Selected chat actions</source>
        <translation>所选对话的操作</translation>
    </message>
    <message>
        <source>Rename, export or delete the selected chat</source>
        <translation>重命名、导出或删除所选对话</translation>
    </message>
    <message>
        <source>Deleted “{title}”.</source>
        <translation>已删除“{title}”。</translation>
    </message>
    <message>
        <source>Could not write {path}: {strerror}.</source>
        <translation>无法写入 {path}:{strerror}。</translation>
    </message>
    <message>
        <source>Exported “{title}” to {path}.</source>
        <translation>已将“{title}”导出到 {path}。</translation>
    </message>
    <message>
        <source>Exporting every chat to {path}…</source>
        <translation>正在将所有对话导出到 {path}…</translation>
    </message>
    <message>
        <source>Exported {count} chat to {path}.</source>
        <translation>已将 {count} 个对话导出到 {path}。</translation>
    </message>
    <message>
        <source>Exported {count} chats to {path}.</source>
        <translation>已将 {count} 个对话导出到 {path}。</translation>
    </message>
    <message>
        <source>No chat matches the filter.</source>
        <translation>没有符合筛选条件的对话。</translation>
    </message>
    <message>
        <source>{count} chat</source>
        <translation>{count} 个对话</translation>
    </message>
    <message>
        <source>{count} chats</source>
        <translation>{count} 个对话</translation>
    </message>
    <message>
        <source>No message contains “{text}”.</source>
        <translation>没有消息包含“{text}”。</translation>
    </message>
</context>
<context>
    <name>Parts</name>
    <message>
        <source>Shown as plain text (too large to format).</source>
        <translation>以纯文本显示(内容过大,无法排版)。</translation>
    </message>
    <message>
        <source>Assistant message</source>
        <translation>助手消息</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Thinking… {started:.1f} s</source>
        <translation>正在思考… {started:.1f} 秒</translation>
    </message>
    <message>
        <source>Thought for {duration_s:.1f} s</source>
        <translation>思考了 {duration_s:.1f} 秒</translation>
    </message>
    <message>
        <source>Thoughts</source>
        <translation>思考过程</translation>
    </message>
</context>
<context>
    <name>Presets</name>
    <message>
        <source>Coder</source>
        <translation>程序员</translation>
    </message>
    <message>
        <source>Writer</source>
        <translation>写作者</translation>
    </message>
    <message>
        <source>Researcher</source>
        <translation>研究员</translation>
    </message>
</context>
<context>
    <name>PresetsPage</name>
    <message>
        <source>As in Settings</source>
        <translation>与设置相同</translation>
    </message>
    <message>
        <source>OpenAI-compatible</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
    <message>
        <source>D&amp;uplicate</source>
        <translation>复制(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Reset to shipped</source>
        <translation>恢复为内置版本(&amp;R)</translation>
    </message>
    <message>
        <source>Bring back this preset as the app ships it</source>
        <translation>将此预设恢复为应用内置的版本</translation>
    </message>
    <message>
        <source>Restore shipped presets</source>
        <translation>恢复内置预设</translation>
    </message>
    <message>
        <source>Bring back the shipped presets you deleted</source>
        <translation>恢复您删除的内置预设</translation>
    </message>
    <message>
        <source>Preset name</source>
        <translation>预设名称</translation>
    </message>
    <message>
        <source>Preset name problem</source>
        <translation>预设名称问题</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>System &amp;prompt:</source>
        <translation>系统提示词(&amp;P)：</translation>
    </message>
    <message>
        <source>What the model is told before every chat started with it.</source>
        <translation>在以此预设开始的每个对话之前告诉模型的内容。</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source>Pro&amp;vider:</source>
        <translation>提供方(&amp;V)：</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The model chats use</source>
        <translation>对话使用的模型</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>Own &amp;temperature</source>
        <translation>自定义温度(&amp;T)</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Temperature:</source>
        <translation>温度：</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>T&amp;ools:</source>
        <translation>工具(&amp;O)：</translation>
    </message>
    <message>
        <source>Preset state</source>
        <translation>预设状态</translation>
    </message>
    <message>
        <source>A preset needs a name.</source>
        <translation>预设需要一个名称。</translation>
    </message>
    <message>
        <source>Two presets are named “{name}”.</source>
        <translation>有两个预设都叫“{name}”。</translation>
    </message>
    <message>
        <source>Preset name (Presets tab)</source>
        <translation>预设名称（预设页）</translation>
    </message>
    <message>
        <source>New preset</source>
        <translation>新预设</translation>
    </message>
    <message>
        <source>{name} copy</source>
        <translation>{name} 副本</translation>
    </message>
    <message>
        <source>(no name)</source>
        <translation>（无名称）</translation>
    </message>
    <message>
        <source>{name} (edited)</source>
        <translation>{name}（已编辑）</translation>
    </message>
    <message>
        <source>Shipped with the app; edited — Reset brings it back.</source>
        <translation>应用内置；已编辑 — “恢复”可还原。</translation>
    </message>
    <message>
        <source>Shipped with the app.</source>
        <translation>应用内置。</translation>
    </message>
</context>
<context>
    <name>Preview</name>
    <message>
        <source>changes to {target}</source>
        <translation>{target} 的更改</translation>
    </message>
    <message>
        <source>replaces {target} (not shown: not a small text file)</source>
        <translation>替换 {target}(未显示:不是小型文本文件)</translation>
    </message>
    <message>
        <source>new file {target}</source>
        <translation>新文件 {target}</translation>
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
    <name>Question</name>
    <message>
        <source> (required)</source>
        <translation>（必填）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Remember in the keyring</source>
        <translation>记住（保存在密钥环中）</translation>
    </message>
    <message>
        <source>Remember {field} in the keyring</source>
        <translation>在密钥环中记住 {field}</translation>
    </message>
    <message>
        <source>Question from the MCP server {server}</source>
        <translation>来自 MCP 服务器 {server} 的问题</translation>
    </message>
    <message>
        <source>&lt;b&gt;{server}&lt;/b&gt; wants you to open a page on &lt;b&gt;{site}&lt;/b&gt;</source>
        <translation>&lt;b&gt;{server}&lt;/b&gt; 希望您打开 &lt;b&gt;{site}&lt;/b&gt; 上的一个页面</translation>
    </message>
    <message>
        <source>&lt;b&gt;{server}&lt;/b&gt; asks:</source>
        <translation>&lt;b&gt;{server}&lt;/b&gt; 询问：</translation>
    </message>
    <message>
        <source>What the server asks</source>
        <translation>服务器询问的内容</translation>
    </message>
    <message>
        <source>During the call of {tool}</source>
        <translation>在调用 {tool} 期间</translation>
    </message>
    <message>
        <source>The page&apos;s address</source>
        <translation>页面地址</translation>
    </message>
    <message>
        <source>* required</source>
        <translation>* 必填</translation>
    </message>
    <message>
        <source>O&amp;pen in browser</source>
        <translation>在浏览器中打开(&amp;P)</translation>
    </message>
    <message>
        <source>S&amp;ubmit</source>
        <translation>提交(&amp;U)</translation>
    </message>
    <message>
        <source>Decli&amp;ne</source>
        <translation>拒绝(&amp;N)</translation>
    </message>
    <message>
        <source>C&amp;ancel</source>
        <translation>取消(&amp;A)</translation>
    </message>
    <message>
        <source>Decline</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Open the page in your browser and tell the server you did</source>
        <translation>在浏览器中打开该页面，并告诉服务器您已打开</translation>
    </message>
    <message>
        <source>Send these answers to the server</source>
        <translation>将这些回答发送给服务器</translation>
    </message>
    <message>
        <source>Tell the server you do not want to answer</source>
        <translation>告诉服务器您不想回答</translation>
    </message>
    <message>
        <source>Dismiss the question without answering</source>
        <translation>不回答并关闭此问题</translation>
    </message>
    <message>
        <source>{action} the question of {server}</source>
        <translation>{server} 的问题：{action}</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Opened in the browser</source>
        <translation>已在浏览器中打开</translation>
    </message>
    <message>
        <source>Answer sent</source>
        <translation>回答已发送</translation>
    </message>
    <message>
        <source>Declined</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>QuickAsk</name>
    <message>
        <source>Quick ask — Desktop Agent</source>
        <translation>快速提问 — Desktop Agent</translation>
    </message>
    <message>
        <source>Quick ask</source>
        <translation>快速提问</translation>
    </message>
    <message>
        <source>Ask anything — Enter sends</source>
        <translation>随便问 — 按 Enter 发送</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>The answer shows here.</source>
        <translation>回答会显示在这里。</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Quick ask status</source>
        <translation>快速提问状态</translation>
    </message>
    <message>
        <source>Open in window</source>
        <translation>在窗口中打开</translation>
    </message>
    <message>
        <source>Continue this chat in the main window (Ctrl+Enter)</source>
        <translation>在主窗口中继续此对话 (Ctrl+Enter)</translation>
    </message>
    <message>
        <source>Wait for the answer, or press Esc to stop it.</source>
        <translation>请等待回答，或按 Esc 停止。</translation>
    </message>
    <message>
        <source>Starting up — your question is sent in a moment…</source>
        <translation>正在启动 — 您的问题稍后发送…</translation>
    </message>
    <message>
        <source>Answering…</source>
        <translation>正在回答…</translation>
    </message>
    <message>
        <source>Using the tool %1…</source>
        <translation>正在使用工具 %1…</translation>
    </message>
    <message>
        <source>%1 wants to run: %2</source>
        <translation>%1 想要运行：%2</translation>
    </message>
    <message>
        <source>%1 asked a question; quick ask cannot show forms, so it was declined (ask in the main window to answer it)</source>
        <translation>%1 提出了一个问题；快速提问无法显示表单，因此已拒绝（请在主窗口中提问以回答它）</translation>
    </message>
    <message>
        <source>Stopped. The partial answer is kept.</source>
        <translation>已停止。部分回答已保留。</translation>
    </message>
    <message>
        <source>Enter on an empty line (or Ctrl+Enter) opens this chat in the window.</source>
        <translation>在空行按 Enter（或 Ctrl+Enter）可在窗口中打开此对话。</translation>
    </message>
    <message>
        <source>The answer did not finish.</source>
        <translation>回答没有完成。</translation>
    </message>
    <message>
        <source>Opens in the window when the answer ends…</source>
        <translation>回答结束后将在窗口中打开…</translation>
    </message>
</context>
<context>
    <name>RuleEditor</name>
    <message>
        <source>any call</source>
        <translation>任何调用</translation>
    </message>
    <message>
        <source>paths under a folder</source>
        <translation>某文件夹下的路径</translation>
    </message>
    <message>
        <source>commands starting with a word</source>
        <translation>以某个词开头的命令</translation>
    </message>
    <message>
        <source>a host (web address)</source>
        <translation>某个主机（网址）</translation>
    </message>
    <message>
        <source>these exact arguments</source>
        <translation>这些确切的参数</translation>
    </message>
    <message>
        <source>allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Edit permission rule</source>
        <translation>编辑权限规则</translation>
    </message>
    <message>
        <source>Add permission rule</source>
        <translation>添加权限规则</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Applies to</source>
        <translation>适用于</translation>
    </message>
    <message>
        <source>Folder, command or host</source>
        <translation>文件夹、命令或主机</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>&amp;Tool:</source>
        <translation>工具(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Applies to:</source>
        <translation>适用于(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation>值(&amp;V)：</translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation>策略(&amp;P)：</translation>
    </message>
    <message>
        <source>Rule problem</source>
        <translation>规则问题</translation>
    </message>
    <message>
        <source>Choose a tool.</source>
        <translation>请选择一个工具。</translation>
    </message>
    <message>
        <source>Say which folder, command or host the rule is for.</source>
        <translation>请说明此规则针对哪个文件夹、命令或主机。</translation>
    </message>
    <message>
        <source>The folder must be a full path (starting with / or ~).</source>
        <translation>文件夹必须是完整路径（以 / 或 ~ 开头）。</translation>
    </message>
    <message>
        <source>{name} can change or delete things: it is never allowed for any call. Give a folder, command or host.</source>
        <translation>{name} 可以更改或删除内容：绝不会对任何调用都允许。请指定文件夹、命令或主机。</translation>
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
        <translation>允许</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Applies to</source>
        <translation>适用于</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>上次使用</translation>
    </message>
    <message>
        <source>Show the permission rules</source>
        <translation>显示权限规则</translation>
    </message>
    <message>
        <source>made by Always allow on an approval card or added here; changes apply at once</source>
        <translation>由批准卡片上的“始终允许”创建或在此添加；更改立即生效</translation>
    </message>
    <message>
        <source>Permission rules</source>
        <translation>权限规则</translation>
    </message>
    <message>
        <source>No rules yet.</source>
        <translation>还没有规则。</translation>
    </message>
    <message>
        <source>No permission rules</source>
        <translation>没有权限规则</translation>
    </message>
    <message>
        <source>Re&amp;voke</source>
        <translation>撤销(&amp;V)</translation>
    </message>
    <message>
        <source>Revoke the selected rule</source>
        <translation>撤销所选规则</translation>
    </message>
    <message>
        <source>&amp;Add…</source>
        <translation>添加(&amp;A)…</translation>
    </message>
    <message>
        <source>Add a permission rule</source>
        <translation>添加一条权限规则</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Edit the selected rule</source>
        <translation>编辑所选规则</translation>
    </message>
    <message>
        <source>Policy of the rule for {tool}</source>
        <translation>{tool} 的规则策略</translation>
    </message>
    <message>
        <source>Permission rules ({n_rows})</source>
        <translation>权限规则({n_rows})</translation>
    </message>
</context>
<context>
    <name>Scope</name>
    <message>
        <source>any call of {tool}</source>
        <translation>{tool} 的任何调用</translation>
    </message>
    <message>
        <source>these exact arguments</source>
        <translation>完全相同的参数</translation>
    </message>
    <message>
        <source>paths under {path}</source>
        <translation>{path} 下的路径</translation>
    </message>
    <message>
        <source>commands starting with {command}</source>
        <translation>以 {command} 开头的命令</translation>
    </message>
    <message>
        <source>the host {host}</source>
        <translation>主机 {host}</translation>
    </message>
</context>
<context>
    <name>ServerStatus</name>
    <message>
        <source>Server status</source>
        <translation>服务器状态</translation>
    </message>
    <message>
        <source>Checking the server…</source>
        <translation>正在检查服务器…</translation>
    </message>
    <message>
        <source>Server online</source>
        <translation>服务器在线</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Start a new line</source>
        <translation>换行</translation>
    </message>
    <message>
        <source>Bring back your last message to edit (in an empty box)</source>
        <translation>调出您的上一条消息以便编辑（输入框为空时）</translation>
    </message>
    <message>
        <source>Attach files (or drop or paste them in the box)</source>
        <translation>添加附件（或将文件拖放或粘贴到输入框中）</translation>
    </message>
    <message>
        <source>Save the settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>The next page (also Ctrl+PgDown)</source>
        <translation>下一页（也可用 Ctrl+PgDown）</translation>
    </message>
    <message>
        <source>The previous page (also Ctrl+PgUp)</source>
        <translation>上一页（也可用 Ctrl+PgUp）</translation>
    </message>
    <message>
        <source>Close Settings without saving</source>
        <translation>关闭设置而不保存</translation>
    </message>
    <message>
        <source>Anywhere in the window</source>
        <translation>窗口中任意位置</translation>
    </message>
    <message>
        <source>Message box</source>
        <translation>消息输入框</translation>
    </message>
    <message>
        <source>History search</source>
        <translation>历史记录搜索</translation>
    </message>
    <message>
        <source>An approval card</source>
        <translation>批准卡片</translation>
    </message>
    <message>
        <source>A server&apos;s question</source>
        <translation>服务器的问题</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Quick ask</source>
        <translation>快速提问</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>作用</translation>
    </message>
    <message>
        <source>Allow the call once</source>
        <translation>允许这次调用一次</translation>
    </message>
    <message>
        <source>Allow the tool for this chat</source>
        <translation>在本对话中允许该工具</translation>
    </message>
    <message>
        <source>Always allow the tool</source>
        <translation>始终允许该工具</translation>
    </message>
    <message>
        <source>Deny the call</source>
        <translation>拒绝这次调用</translation>
    </message>
    <message>
        <source>Go to what the approval applies to</source>
        <translation>转到批准的适用范围</translation>
    </message>
    <message>
        <source>From the search box into the list or the results</source>
        <translation>从搜索框进入列表或结果</translation>
    </message>
    <message>
        <source>Open the selected (or first) result</source>
        <translation>打开所选（或第一个）结果</translation>
    </message>
    <message>
        <source>Clear the search</source>
        <translation>清除搜索</translation>
    </message>
    <message>
        <source>Send the question</source>
        <translation>发送问题</translation>
    </message>
    <message>
        <source>Open the chat in the main window (also Enter on an empty line)</source>
        <translation>在主窗口中打开对话（也可在空行按 Enter）</translation>
    </message>
    <message>
        <source>Stop the answer, or close the quick ask</source>
        <translation>停止回答，或关闭快速提问</translation>
    </message>
    <message>
        <source>Submit the answers to the server&apos;s question</source>
        <translation>提交对服务器问题的回答</translation>
    </message>
    <message>
        <source>Open the page the server asks for</source>
        <translation>打开服务器要求的页面</translation>
    </message>
    <message>
        <source>Decline the server&apos;s question</source>
        <translation>拒绝服务器的问题</translation>
    </message>
    <message>
        <source>Cancel the server&apos;s question</source>
        <translation>取消服务器的问题</translation>
    </message>
</context>
<context>
    <name>SummaryCard</name>
    <message>
        <source>Summary of the first %n message — sent to the model instead of it</source>
        <translation>前 %n 条消息的摘要 — 代替原消息发送给模型</translation>
    </message>
    <message>
        <source>Summary of the first %n messages — sent to the model instead of them</source>
        <translation>前 %n 条消息的摘要 — 代替原消息发送给模型</translation>
    </message>
    <message>
        <source>Summary of earlier messages</source>
        <translation>较早消息的摘要</translation>
    </message>
    <message>
        <source>Show the summary</source>
        <translation>显示摘要</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Send the earlier messages again instead of this summary</source>
        <translation>重新发送较早的消息,而不是此摘要</translation>
    </message>
    <message>
        <source>Undo the summary</source>
        <translation>撤销摘要</translation>
    </message>
    <message>
        <source>The messages above stay in the chat (and in search and exports); the model gets this summary instead.</source>
        <translation>上面的消息仍保留在对话中(也可搜索和导出);模型收到的是此摘要。</translation>
    </message>
    <message>
        <source>Hide the summary</source>
        <translation>隐藏摘要</translation>
    </message>
</context>
<context>
    <name>ToolList</name>
    <message>
        <source>changes things</source>
        <translation>会修改内容</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>Installed tools</source>
        <translation>已安装的工具</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Tools summary</source>
        <translation>工具摘要</translation>
    </message>
    <message>
        <source>Re&amp;load tools</source>
        <translation>重新加载工具(&amp;L)</translation>
    </message>
    <message>
        <source>Reload the tools from their files</source>
        <translation>从文件重新加载工具</translation>
    </message>
    <message>
        <source>Load the tool files again, without restarting: new and changed files count from the next message on</source>
        <translation>无需重启即可重新加载工具文件:新增和更改的文件从下一条消息起生效</translation>
    </message>
    <message>
        <source>Tools status</source>
        <translation>工具状态</translation>
    </message>
    <message>
        <source>Listing the tools…</source>
        <translation>正在列出工具…</translation>
    </message>
    <message>
        <source>Reloading the tools…</source>
        <translation>正在重新加载工具…</translation>
    </message>
    <message>
        <source>The tools could not be listed: {error}</source>
        <translation>无法列出工具:{error}</translation>
    </message>
    <message>
        <source>%n tool</source>
        <translation>%n 个工具</translation>
    </message>
    <message>
        <source>%n tools</source>
        <translation>%n 个工具</translation>
    </message>
    <message>
        <source>{count} reloaded.</source>
        <translation>已重新加载 {count}。</translation>
    </message>
    <message>
        <source>{count}.</source>
        <translation>{count}。</translation>
    </message>
    <message>
        <source>Some tool files could not be loaded (the details are in the log); the other tools work:
{shown}</source>
        <translation>部分工具文件无法加载(详细信息在日志中);其他工具正常:
{shown}</translation>
    </message>
    <message>
        <source>{name}, from {source}</source>
        <translation>{name},来源:{source}</translation>
    </message>
    <message>
        <source>kind not declared</source>
        <translation>未声明类型</translation>
    </message>
    <message>
        <source>(no description)</source>
        <translation>(无说明)</translation>
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
        <translation>提供给模型的工具</translation>
    </message>
    <message>
        <source>Tool calls</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>Tool call arguments</source>
        <translation>工具调用参数</translation>
    </message>
    <message>
        <source>Select a tool call to see its arguments.</source>
        <translation>选择一个工具调用以查看其参数。</translation>
    </message>
    <message>
        <source>Tool call result</source>
        <translation>工具调用结果</translation>
    </message>
    <message>
        <source>Permission decision</source>
        <translation>权限决定</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
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
        <translation>状态</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Copy arguments</source>
        <translation>复制参数</translation>
    </message>
    <message>
        <source>Copy result</source>
        <translation>复制结果</translation>
    </message>
    <message>
        <source>Cancel call</source>
        <translation>取消调用</translation>
    </message>
    <message>
        <source>Cancel this tool call</source>
        <translation>取消此工具调用</translation>
    </message>
    <message>
        <source>Stop this tool call (Delete in the list); the assistant is told it was cancelled and goes on</source>
        <translation>停止此工具调用(在列表中按 Delete);助手会得知它已被取消并继续</translation>
    </message>
    <message>
        <source>Cancel the selected tool call</source>
        <translation>取消所选的工具调用</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Offered: </source>
        <translation>已提供:</translation>
    </message>
    <message>
        <source>; asked to call {chosen}</source>
        <translation>;要求调用 {chosen}</translation>
    </message>
    <message>
        <source>No tools offered — {reason}</source>
        <translation>未提供工具 — {reason}</translation>
    </message>
    <message>
        <source>{text}

… {more:,} more characters not shown (too large to display); Copy copies the whole result.</source>
        <translation>{text}

… 还有 {more:,} 个字符未显示(内容过大);“复制”会复制完整结果。</translation>
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
        <translation>结果或错误显示在这里。</translation>
    </message>
    <message>
        <source>Images of the result</source>
        <translation>结果中的图像</translation>
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
        <translation>应用自带</translation>
    </message>
    <message>
        <source>user</source>
        <comment>a tool from the user&apos;s tools folder</comment>
        <translation>你的工具文件夹</translation>
    </message>
</context>
<context>
    <name>Toolbar</name>
    <message>
        <source>Main toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>对话(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>ToolsOffered</name>
    <message>
        <source>the tools called in this turn</source>
        <translation>本轮调用过的工具</translation>
    </message>
    <message>
        <source>the model repeated its calls</source>
        <translation>模型重复了它的调用</translation>
    </message>
    <message>
        <source>tools are off for this model</source>
        <translation>此模型的工具已关闭</translation>
    </message>
    <message>
        <source>no tools</source>
        <translation>无工具</translation>
    </message>
    <message>
        <source>the tool chosen for this message</source>
        <translation>为此消息选择的工具</translation>
    </message>
    <message>
        <source>every tool; a tool call is required</source>
        <translation>全部工具;必须调用工具</translation>
    </message>
    <message>
        <source>every tool</source>
        <translation>全部工具</translation>
    </message>
    <message>
        <source>the most relevant tools</source>
        <translation>最相关的工具</translation>
    </message>
    <message>
        <source>its server says it cannot use tools</source>
        <translation>其服务器表示它不能使用工具</translation>
    </message>
    <message>
        <source>the server said it cannot use tools</source>
        <translation>服务器表示它不能使用工具</translation>
    </message>
    <message>
        <source>it answered nothing when offered them</source>
        <translation>提供工具时它什么都没回答</translation>
    </message>
    <message>
        <source>no tool fits the message</source>
        <translation>没有与消息相关的工具</translation>
    </message>
    <message>
        <source>named in the message</source>
        <translation>消息中点名的工具</translation>
    </message>
    <message>
        <source>a follow-up of the tools used last</source>
        <translation>延续上次使用的工具</translation>
    </message>
    <message>
        <source>matched {words}</source>
        <translation>匹配 {words}</translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <source>Tools sections</source>
        <translation>工具分区</translation>
    </message>
    <message>
        <source>&amp;Use tools</source>
        <translation>使用工具(&amp;U)</translation>
    </message>
    <message>
        <source>Use tools</source>
        <translation>使用工具</translation>
    </message>
    <message>
        <source>The model may call the shipped tools, those in your tools folder and those in the extra folders. Off: the model gets no tools.</source>
        <translation>模型可以调用自带的工具、你的工具文件夹中的工具以及额外文件夹中的工具。关闭:模型得不到任何工具。</translation>
    </message>
    <message>
        <source>Tool timeout in seconds</source>
        <translation>工具超时(秒)</translation>
    </message>
    <message>
        <source>Tool timeout error</source>
        <translation>工具超时错误</translation>
    </message>
    <message>
        <source>Tool &amp;timeout (s):</source>
        <translation>工具超时(秒)(&amp;T):</translation>
    </message>
    <message>
        <source>Seconds a tool may run before it is stopped, e.g. 30 (a tool can set its own with `@tool(timeout_s=...)`).</source>
        <translation>工具被停止前可运行的秒数,例如 30(工具可用 `@tool(timeout_s=...)` 自行设置)。</translation>
    </message>
    <message>
        <source>&amp;Isolate tools in their own process</source>
        <translation>在独立进程中运行工具(&amp;I)</translation>
    </message>
    <message>
        <source>Run tools in a separate process</source>
        <translation>在单独的进程中运行工具</translation>
    </message>
    <message>
        <source>A tool that crashes, hangs or prints cannot take the app down: timeout and cancel stop it for real, and what it prints is shown with its result. Off: tools run inside the app (a little faster to start).</source>
        <translation>崩溃、卡住或大量输出的工具不会拖垮应用:超时和取消会真正停止它,其打印的内容会随结果显示。关闭:工具在应用内运行(启动稍快)。</translation>
    </message>
    <message>
        <source>Tool output cap in characters</source>
        <translation>工具输出上限(字符)</translation>
    </message>
    <message>
        <source>Tool output cap error</source>
        <translation>工具输出上限错误</translation>
    </message>
    <message>
        <source>Output &amp;cap (characters):</source>
        <translation>输出上限(字符)(&amp;C):</translation>
    </message>
    <message>
        <source>Characters of a tool&apos;s output sent to the model, at least 256; longer output is cut (Tool activity shows all of it).</source>
        <translation>发送给模型的工具输出字符数,至少 256;更长的输出会被截断(“工具活动”中显示全部)。</translation>
    </message>
    <message>
        <source>Offer only the tools that &amp;fit the message</source>
        <translation>只提供与消息相关的工具(&amp;F)</translation>
    </message>
    <message>
        <source>Offer only the tools that fit the message</source>
        <translation>只提供与消息相关的工具</translation>
    </message>
    <message>
        <source>A message no tool fits (“What is the capital of France?”) is answered without tools; one that fits gets only the best few. Small models take every tool offered as an order. Off: every tool on every message.</source>
        <translation>没有相关工具的消息(“法国的首都是哪里?”)不带工具回答;有相关工具的消息只获得最合适的几个。小模型会把提供的每个工具都当作命令。关闭:每条消息都提供全部工具。</translation>
    </message>
    <message>
        <source>Most tools offered at once</source>
        <translation>一次最多提供的工具数</translation>
    </message>
    <message>
        <source>Offer at &amp;most (tools):</source>
        <translation>最多提供(工具数)(&amp;M):</translation>
    </message>
    <message>
        <source>With more tools than this, each message offers the model the most relevant ones and a find_tools tool for the rest (small models stop calling tools when offered dozens). 0 = all.</source>
        <translation>工具多于此数时,每条消息只向模型提供最相关的工具,其余通过 find_tools 工具查找(提供几十个工具时,小模型会不再调用工具)。0 = 全部。</translation>
    </message>
    <message>
        <source>Folders tools may use</source>
        <translation>工具可使用的文件夹</translation>
    </message>
    <message>
        <source>&amp;Add folder…</source>
        <translation>添加文件夹(&amp;A)…</translation>
    </message>
    <message>
        <source>Allow tools to use a folder</source>
        <translation>允许工具使用文件夹</translation>
    </message>
    <message>
        <source>Not found, file tools cannot use:</source>
        <translation>未找到,文件工具无法使用:</translation>
    </message>
    <message>
        <source>Folders tools may u&amp;se:</source>
        <translation>工具可使用的文件夹(&amp;S):</translation>
    </message>
    <message>
        <source>The file tools (list, read, search, write) and shell commands work only inside these folders and their sub-folders; none by default. Writes and commands ask first.</source>
        <translation>文件工具(列出、读取、搜索、写入)和 shell 命令只能在这些文件夹及其子文件夹中工作;默认没有任何文件夹。写入和命令会先询问。</translation>
    </message>
    <message>
        <source>&amp;Options</source>
        <translation>选项(&amp;O)</translation>
    </message>
    <message>
        <source>Your tools folder</source>
        <translation>你的工具文件夹</translation>
    </message>
    <message>
        <source>O&amp;pen tools folder</source>
        <translation>打开工具文件夹(&amp;P)</translation>
    </message>
    <message>
        <source>Open the tools folder in the file manager</source>
        <translation>在文件管理器中打开工具文件夹</translation>
    </message>
    <message>
        <source>Tools folder status</source>
        <translation>工具文件夹状态</translation>
    </message>
    <message>
        <source>Your tools folder:</source>
        <translation>你的工具文件夹:</translation>
    </message>
    <message>
        <source>Python files with `@tool` functions put here are loaded with the shipped tools.</source>
        <translation>放在这里的含 `@tool` 函数的 Python 文件会与自带工具一起加载。</translation>
    </message>
    <message>
        <source>Extra tool folders</source>
        <translation>额外的工具文件夹</translation>
    </message>
    <message>
        <source>A&amp;dd folder…</source>
        <translation>添加文件夹(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>Add a tool folder</source>
        <translation>添加工具文件夹</translation>
    </message>
    <message>
        <source>Remove the selected tool folder</source>
        <translation>移除所选工具文件夹</translation>
    </message>
    <message>
        <source>Not found, skipped when tools load:</source>
        <translation>未找到,加载工具时跳过:</translation>
    </message>
    <message>
        <source>Extra tool folders note</source>
        <translation>额外工具文件夹说明</translation>
    </message>
    <message>
        <source>Extra tool &amp;folders:</source>
        <translation>额外的工具文件夹(&amp;F):</translation>
    </message>
    <message>
        <source>Untick a tool to keep it from the model (a chat can also choose its own, in the Tools menu above the message box); expand a row for its description and parameters.</source>
        <translation>取消勾选某个工具可不让模型使用它(每个对话也可在消息框上方的“工具”菜单中自行选择);展开一行可查看其说明和参数。</translation>
    </message>
    <message>
        <source>I&amp;nstalled tools</source>
        <translation>已安装的工具(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Learned</source>
        <translation>已学习(&amp;L)</translation>
    </message>
    <message>
        <source>Tool timeout (Tools tab)</source>
        <translation>工具超时(工具页)</translation>
    </message>
    <message>
        <source>Output cap (Tools tab)</source>
        <translation>输出上限(工具页)</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>权限</translation>
    </message>
    <message>
        <source>The tools folder cannot be created: {exc}</source>
        <translation>无法创建工具文件夹:{exc}</translation>
    </message>
    <message>
        <source>No file manager could open {tools_folder}.</source>
        <translation>没有文件管理器能打开 {tools_folder}。</translation>
    </message>
</context>
<context>
    <name>Turn</name>
    <message>
        <source>Your message</source>
        <translation>你的消息</translation>
    </message>
    <message>
        <source>message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Assistant message</source>
        <translation>助手消息</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>The assistant is answering</source>
        <translation>助手正在回答</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>已中断</translation>
    </message>
</context>
<context>
    <name>View</name>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Show earlier messages ({n} more)</source>
        <translation>显示更早的消息(还有 {n} 条)</translation>
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
        <translation>复制{what}</translation>
    </message>
    <message>
        <source>{name}: {label} — click to see the call in the tool sidebar</source>
        <translation>{name}:{label} — 点击在工具侧栏中查看该调用</translation>
    </message>
    <message>
        <source>Tool call {name}, {label}, {dur}</source>
        <translation>工具调用 {name},{label},{dur}</translation>
    </message>
</context>
</TS>
