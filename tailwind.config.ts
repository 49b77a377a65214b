import type { Config } from "tailwindcss";

export default {
  content: ["./app/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        brand: {
          50: "#f3f7f4",
          100: "#e2ece5",
          200: "#c5d9cb",
          500: "#4d7c5c",
          600: "#3c6549",
          700: "#30503b",
          900: "#1c2e22",
        },
        cream: "#fbf8f3",
      },
      fontFamily: {
        serif: ["Georgia", "Cambria", "Times New Roman", "serif"],
      },
    },
  },
  plugins: [],
} satisfies Config;
