from floor_common import app_figures, chart, slider

x = slider()
chart(app_figures(round(10 * x, 3), presized=True)[0])
