from floor_common import app_figures, chart, slider

x = slider()
for spec in app_figures(round(10 * x, 3), presized=False):
    chart(spec)
