/// The page's stylesheet: the theme's colours as custom properties (light, and dark under
/// `prefers-color-scheme: dark`), a phone layout (strip above the agenda) that becomes two columns on wide
/// screens (the strip stays in view), sticky day headers, and a print stylesheet (agenda only, black on white).
enum HTMLStyle {
    static func variables(_ p: HTMLTheme.Palette) -> String {
        "--bg:\(p.background);--surface:\(p.surface);--shade:\(p.shade);--text:\(p.text);--muted:\(p.muted);--accent:\(p.accent);--on-accent:\(p.onAccent);"
    }

    static func css(theme: HTMLTheme) -> String {
        """
        :root{color-scheme:light dark;\(variables(theme.light))--sun:#e8a200;--cloud:#9aa6b4;--rain:#2f7ed8;--snow:#7fb2e5;--bolt:#f2b705;--moon:#8a7fd6}
        @media (prefers-color-scheme:dark){:root{\(variables(theme.dark))--sun:#ffc533;--cloud:#8b97a6;--rain:#5aa2f0;--snow:#b9d8f7;--moon:#c9c1ff}}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--text);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif}
        .defs{position:absolute;width:0;height:0;overflow:hidden}
        .sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        .page{max-width:1200px;margin:0 auto;padding:20px 16px 32px}
        .top{margin:0 2px 18px}
        .top h1{margin:0;font-size:1.7rem;line-height:1.2;letter-spacing:-.01em}
        .top .sub{margin:4px 0 0;color:var(--muted)}
        .legend{display:flex;flex-wrap:wrap;gap:4px 18px;list-style:none;margin:10px 0 0;padding:0;font-size:.9rem}
        .legend li{display:flex;align-items:center;gap:7px;min-width:0;overflow-wrap:anywhere}
        .legend .swatch{margin:0;flex:none}
        .layout{display:grid;gap:20px}
        @media (max-width:879px){.strip-wrap{max-height:65vh;overflow-y:auto;border-radius:16px}}
        @media (min-width:880px){.layout{grid-template-columns:minmax(300px,360px) 1fr;align-items:start}.strip-wrap{position:sticky;top:16px;max-height:calc(100vh - 32px);overflow-y:auto}}
        .strip{width:100%;border-collapse:separate;border-spacing:3px;background:var(--surface);border-radius:16px;padding:10px 8px;table-layout:fixed;box-shadow:0 1px 2px rgba(0,0,0,.08)}
        .strip caption{caption-side:top;text-align:left;font-weight:700;padding:0 6px 8px}
        .strip th{font-size:.75rem;font-weight:600;color:var(--muted);padding:0 0 4px}
        .strip abbr{text-decoration:none}
        .strip td{padding:0;text-align:center}
        .strip a,.strip .cell{display:flex;flex-direction:column;align-items:center;justify-content:center;height:46px;border-radius:10px;color:var(--text);text-decoration:none;position:relative}
        .strip td.m1 a,.strip td.m1 .cell{background:var(--shade)}
        .strip .out .cell{color:var(--muted)}
        .strip .mn{font-size:.62rem;line-height:1;font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:var(--accent)}
        .strip .n{font-weight:600;line-height:1.2;font-variant-numeric:tabular-nums}
        .strip .dot{width:5px;height:5px;border-radius:50%;margin-top:2px}
        .strip .has .dot{background:var(--accent)}
        .strip td.today a{background:var(--accent);color:var(--on-accent)}
        .strip td.today .mn{color:var(--on-accent)}
        .strip td.today.has .dot{background:var(--on-accent)}
        .strip a:hover,.strip a:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}
        .agenda{min-width:0}
        .day{background:var(--surface);border-radius:16px;margin:0 0 14px;box-shadow:0 1px 2px rgba(0,0,0,.08);scroll-margin-top:8px}
        .day:target{outline:2px solid var(--accent)}
        .day-head{position:sticky;top:0;z-index:1;display:flex;align-items:center;justify-content:space-between;gap:12px;padding:12px 18px;background:var(--surface);border-radius:16px 16px 0 0;border-bottom:1px solid var(--shade)}
        .day-head h2{margin:0;font-size:1.05rem;line-height:1.3}
        .day-head .wd{font-weight:700}
        .day-head .dm{font-weight:500;color:var(--muted)}
        .badge{display:inline-block;margin-left:6px;padding:1px 8px;border-radius:99px;background:var(--accent);color:var(--on-accent);font-size:.72rem;font-weight:700;text-transform:uppercase;letter-spacing:.04em;vertical-align:2px}
        .is-today .day-head{box-shadow:inset 4px 0 0 var(--accent)}
        .wx{display:flex;align-items:center;gap:8px;margin:0;white-space:nowrap;font-variant-numeric:tabular-nums}
        .wx.none{color:var(--muted);font-size:.85rem}
        .wxi{width:30px;height:30px}
        .wxs{color:var(--muted);font-size:.9rem;margin-right:2px}
        @media (max-width:600px){.wxs{display:none}}
        .hi{font-weight:700}
        .lo{color:var(--muted)}
        .i-sun{fill:var(--sun)}.i-ray{stroke:var(--sun);stroke-width:1.8;stroke-linecap:round;fill:none}
        .i-cloud{fill:var(--cloud)}.i-mist{stroke:var(--cloud);stroke-width:1.8;stroke-linecap:round}
        .i-water{fill:var(--rain)}.i-rain{stroke:var(--rain);stroke-width:1.8;stroke-linecap:round}
        .i-snow{fill:var(--snow)}.i-bolt{fill:var(--bolt)}.i-moon{fill:var(--moon)}
        .i-none{fill:none;stroke:var(--cloud);stroke-width:1.5}.i-none-mark{stroke:var(--cloud);stroke-width:1.5}
        .entries{list-style:none;margin:0;padding:2px 0}
        .entry{display:grid;grid-template-columns:12px 5.2rem minmax(0,1fr);gap:4px 12px;padding:12px 18px;border-top:1px solid var(--shade)}
        .entry:first-child{border-top:0}
        .swatch{width:12px;height:12px;margin-top:5px;border-radius:50%;background:var(--c,var(--accent));box-shadow:inset 0 0 0 1px rgba(128,128,128,.45)}
        .when{margin:0;display:flex;flex-direction:column;font-variant-numeric:tabular-nums;white-space:nowrap}
        .when .start{font-weight:600}
        .when .dur{font-size:.85rem;color:var(--muted)}
        .what{min-width:0}
        .title{margin:0;font-size:1rem;font-weight:600;overflow-wrap:anywhere}
        .cancelled .title{text-decoration:line-through}
        .tags{margin:4px 0 0;display:flex;flex-wrap:wrap;gap:6px}
        .tag{font-size:.75rem;padding:0 8px;border-radius:99px;border:1px solid var(--muted);color:var(--muted)}
        .loc{margin:3px 0 0;font-size:.9rem;color:var(--muted);overflow-wrap:anywhere}
        .src{margin:3px 0 0;font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
        .pin{width:14px;height:14px;vertical-align:-2px;margin-right:4px;fill:currentColor}
        .people{display:flex;list-style:none;margin:8px 0 0;padding:0 0 0 2px}
        .people li{display:grid;place-items:center;width:28px;height:28px;margin-left:-6px;border-radius:50%;border:2px solid var(--surface);background:var(--shade);color:var(--text);font-size:.68rem;font-weight:700}
        .people li:first-child{margin-left:0}
        .people .more{background:var(--surface);color:var(--muted);border-color:var(--shade)}
        .more-entries{padding:10px 18px;border-top:1px solid var(--shade);color:var(--muted)}
        .empty{margin:0;padding:12px 18px;color:var(--muted)}
        .foot{margin:28px 2px 0;color:var(--muted);font-size:.85rem}
        .foot p{margin:0 0 4px}
        @media (max-width:480px){.page{padding:14px 10px 24px}.top h1{font-size:1.4rem}.entry{grid-template-columns:10px 4.9rem minmax(0,1fr);gap:4px 10px;padding:11px 14px}.swatch{width:10px;height:10px}.day-head{padding:10px 14px}.strip{padding:8px 4px;border-spacing:2px}.strip a,.strip .cell{height:42px}}
        @media print{
        :root{--bg:#fff;--surface:#fff;--shade:#ddd;--text:#000;--muted:#333;--accent:#000;--on-accent:#fff}
        body{font-size:10.5pt}
        .page{max-width:none;padding:0}
        .strip-wrap{display:none}
        .layout{display:block}
        .day{box-shadow:none;border:1px solid #999;break-inside:avoid;margin-bottom:8pt}
        .day-head{position:static}
        .entry{break-inside:avoid;padding:6pt 10pt}
        .swatch{print-color-adjust:exact;-webkit-print-color-adjust:exact}
        }

        """
    }
}
